import { recallPreview } from '#layers/worksites/core/pre-creation-recall'
import { RecallInput } from '#layers/worksites/shared/api'

// Operator (the create and edit forms): what the memory recalls for a work item before it is
// saved (hybrid, lexical when embeddings are down, within its time budget); nothing is stored.
export default defineEventHandler(async (event) => {
  const body = await worksitesBody(event, RecallInput)
  return await recallPreview({ db: await useDb(), embedder: await useMemoryEmbedder('work_recall'), log: line => console.warn(line) }, { title: body.title, body: body.description })
})
