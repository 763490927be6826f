import { z } from 'zod'
import { CRON_RUN_STATUSES } from '#db/schema/ops'
import { automatesWithRuns, RUN_SORTS, runsPage } from '#layers/health/core/cron-runs'
import { pagingQuery } from '#shared/paging'

const Query = z.object({
  ...pagingQuery(RUN_SORTS),
  automation: z.string().trim().min(1).max(100).optional(),
  status: z.enum(CRON_RUN_STATUSES).optional(),
})

// Any signed-in role: the whole execution log (ops_cron_runs), filtered by automate and
// outcome, one numbered page at a time, with the automates the filter can offer.
export default defineEventHandler(async (event) => {
  const { automation, status, ...paging } = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  const [runs, automates] = await Promise.all([runsPage(db, { automation, status }, paging), automatesWithRuns(db)])
  return { runs, automates }
})
