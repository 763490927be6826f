import { latestProactivity } from '#layers/health/core/report/proactivity'

// Any signed-in role: the latest night's project proactivity classifications, action_required first.
export default defineEventHandler(async () => {
  return await latestProactivity(await useDb())
})
