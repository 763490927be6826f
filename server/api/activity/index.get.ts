import { z } from 'zod'
import { ACTIVITY_SOURCES, activityCsv, listActivity } from '../../core/activity'

const Query = z.object({
  source: z.enum(ACTIVITY_SOURCES).optional(),
  actor: z.string().trim().max(200).optional().transform(v => v || undefined),
  action: z.string().trim().max(100).optional().transform(v => v || undefined),
  since: z.coerce.date().optional(),
  until: z.coerce.date().optional(),
  before: z.string().regex(/^\d{4}-\d\d-\d\dT[\d:.]+Z\|(hub|atlas)\|\d+$/, 'before is "<ISO time>|<source>|<id>", as nextBefore gives it').optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  format: z.enum(['json', 'csv']).default('json'),
})

// Any signed-in person (server/core/access.ts): the hub and Atlas audit trails, newest first.
// `format=csv` downloads the same selection (up to 10,000 rows).
export default defineEventHandler(async (event) => {
  const query = await getValidatedQuery(event, Query.parse)
  const before = query.before?.split('|')
  const filter = {
    source: query.source, actor: query.actor, action: query.action, since: query.since, until: query.until,
    before: before ? { at: new Date(before[0]!), source: before[1] as 'hub' | 'atlas', id: Number(before[2]) } : undefined,
  }
  const db = await useDb()
  if (query.format === 'csv') {
    const { items } = await listActivity(db, { ...filter, limit: 10_000 })
    setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8')
    setResponseHeader(event, 'content-disposition', `attachment; filename="synedre-activity-${new Date().toISOString().slice(0, 10)}.csv"`)
    return activityCsv(items)
  }
  const { items, actions } = await listActivity(db, { ...filter, limit: query.limit + 1 })
  const page = items.slice(0, query.limit)
  const last = page.at(-1)
  return { items: page, actions, nextBefore: items.length > query.limit && last ? `${last.at}|${last.source}|${last.id}` : null }
})
