import { z } from 'zod'
import { INBOX_SORTS, listInbox } from '#layers/atlas/core/queries'
import { INBOX_STATUSES, INTENTS } from '#layers/atlas/core/vocabulary'
import { pagingQuery } from '#shared/paging'

const Query = z.object({
  status: z.enum(INBOX_STATUSES).optional(),
  intent: z.enum(INTENTS).optional(),
  q: z.string().max(200).optional(),
  needsHuman: z.enum(['true', 'false']).transform(value => value === 'true').optional(),
  ...pagingQuery(INBOX_SORTS),
})

// The Atlas inbox, one page at a time (newest first unless sorted), with filters and search (any signed-in role).
export default defineEventHandler(async (event) => {
  const filters = await getValidatedQuery(event, Query.parse)
  return await listInbox(await useDb(), filters)
})
