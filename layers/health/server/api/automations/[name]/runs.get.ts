import { z } from 'zod'
import { RUN_SORTS, runLogPage } from '#layers/health/core/cron-runs'
import { findAutomation } from '#layers/health/core/automations'
import { pagingQuery } from '#shared/paging'

const Params = z.object({ name: z.string().min(1).max(100) })
const Query = z.object(pagingQuery(RUN_SORTS))

// Any signed-in role: an automate's run log (ops_cron_runs), one numbered page at a time (newest
// first unless sorted), with its registry row.
export default defineEventHandler(async (event) => {
  const { name } = await getValidatedRouterParams(event, Params.parse)
  const paging = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  const [automation, runs] = await Promise.all([findAutomation(db, name), runLogPage(db, name, paging)])
  if (!automation && runs.total === 0) throw createError({ statusCode: 404, statusMessage: `No automation named "${name}" and no run of it.`, data: { code: 'not_found' } })
  return { automation: automation ?? null, runs }
})
