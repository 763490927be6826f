import { z } from 'zod'
import { INBOX_SORTS, listInbox } from '../../../core/queries'
import { INBOX_STATUSES, INTENTS } from '../../../core/vocabulary'

const Query = z.object({
  status: z.enum(INBOX_STATUSES).optional(),
  intent: z.enum(INTENTS).optional(),
  q: z.string().max(200).optional(),
  needsHuman: z.enum(['true', 'false']).transform(value => value === 'true').optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).optional(),
  sort: z.enum(INBOX_SORTS).optional(),
  dir: z.enum(['asc', 'desc']).optional(),
})

// The Atlas inbox, one page at a time (newest first unless sorted), with filters and search (any signed-in role).
export default defineEventHandler(async (event) => {
  const filters = await getValidatedQuery(event, Query.parse)
  return await listInbox(await useDb(), filters)
})
