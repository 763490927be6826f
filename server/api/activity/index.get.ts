import { z } from 'zod'
import { ACTIVITY_SORTS, ACTIVITY_SOURCES, activityCsv, listActivity } from '../../core/activity'
import { pagingQuery } from '#shared/paging'

const Query = z.object({
  source: z.enum(ACTIVITY_SOURCES).optional(),
  actor: z.string().trim().max(200).optional().transform(v => v || undefined),
  action: z.string().trim().max(100).optional().transform(v => v || undefined),
  since: z.coerce.date().optional(),
  until: z.coerce.date().optional(),
  ...pagingQuery(ACTIVITY_SORTS),
  format: z.enum(['json', 'csv']).default('json'),
})

// Any signed-in person (shared/access.ts): the hub and Atlas audit trails, newest first
// unless sorted, one numbered page at a time. `format=csv` downloads the whole selection in the
// same order (up to 10,000 rows), whatever the page.
export default defineEventHandler(async (event) => {
  const { format, page, pageSize, sort, dir, ...filter } = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  if (format === 'csv') {
    const { items } = await listActivity(db, filter, { page: 1, pageSize: 10_000, sort, dir })
    setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8')
    setResponseHeader(event, 'content-disposition', `attachment; filename="synedre-activity-${new Date().toISOString().slice(0, 10)}.csv"`)
    return activityCsv(items)
  }
  return await listActivity(db, filter, { page, pageSize, sort, dir })
})
