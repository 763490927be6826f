import { z } from 'zod'
import { listInbox } from '../../../core/queries'
import { INBOX_STATUSES, INTENTS } from '../../../core/vocabulary'

const Query = z.object({
  status: z.enum(INBOX_STATUSES).optional(),
  intent: z.enum(INTENTS).optional(),
  q: z.string().max(200).optional(),
  needsHuman: z.enum(['true', 'false']).transform(value => value === 'true').optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
})

// The Atlas inbox, newest first, with filters and search (any signed-in role).
export default defineEventHandler(async (event) => {
  const filters = await getValidatedQuery(event, Query.parse)
  return await listInbox(await useDb(), filters)
})
