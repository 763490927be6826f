import { listInbox } from '#layers/atlas/core/queries'
import { InboxQuery } from '#layers/atlas/core/schemas'

// The Atlas inbox, one page at a time (newest first unless sorted), with filters and search (any signed-in role).
export default defineEventHandler(async (event) => {
  const filters = await getValidatedQuery(event, InboxQuery.parse)
  return await listInbox(await useDb(), filters)
})
