import { z } from 'zod'
import { listSpawns } from '#layers/spawn/core/queries'

const Query = z.object({ messageId: z.coerce.number().int().positive() })

// The spawns of one message, newest first, each with its last event and how long ago.
export default defineEventHandler(async (event) => {
  const { messageId } = await getValidatedQuery(event, Query.parse)
  return await listSpawns(await useDb(), messageId)
})
