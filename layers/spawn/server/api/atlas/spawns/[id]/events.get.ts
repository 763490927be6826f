import { z } from 'zod'
import { getSpawn, spawnEvents } from '#layers/spawn/core/queries'

const Params = z.object({ id: z.uuid() })
const Query = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  payload: z.enum(['0', '1']).default('0'),
})

// A page of a spawn's event log (sequence after `after`), with the full payloads on request.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const query = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  if (!await getSpawn(db, id)) throw createError({ statusCode: 404, statusMessage: `No spawn ${id}.`, data: { code: 'not_found' } })
  return await spawnEvents(db, id, { after: query.after, limit: query.limit, payload: query.payload === '1' })
})
