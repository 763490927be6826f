import { RecallQuery } from '#layers/memory/core/api'
import { recall } from '#layers/memory/core/recall/engine'

// Any signed-in role: hybrid (default), semantic or lexical recall over the vector index.
// The recall counters of the scars served are updated in the background.
export default defineEventHandler(async (event) => {
  const query = await getValidatedQuery(event, RecallQuery.parse)
  try {
    return await recall(
      {
        db: await useDb(),
        embedder: await useMemoryEmbedder('memory_recall'),
        log: line => console.warn(line),
      },
      {
        query: query.q,
        k: query.k,
        mode: query.mode,
        scope: query.scope,
        agent: query.agent,
        tenant: query.tenant,
        belowFloor: query.floor,
      },
    )
  }
  catch (error) {
    throwMemoryHttpError(error)
  }
})
