import { z } from 'zod'
import { recentRuns } from '../../../../core/cron-runs'
import { findAutomation } from '../../../../core/automations'

const Params = z.object({ name: z.string().min(1).max(100) })
const Query = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) })

// Any signed-in role: an automate's run log (ops_cron_runs), newest first, with its registry row.
export default defineEventHandler(async (event) => {
  const { name } = await getValidatedRouterParams(event, Params.parse)
  const { limit } = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  const [automation, runs] = await Promise.all([findAutomation(db, name), recentRuns(db, name, limit)])
  if (!automation && runs.length === 0) throw createError({ statusCode: 404, statusMessage: `No automation named "${name}" and no run of it.`, data: { code: 'not_found' } })
  return { automation: automation ?? null, runs }
})
