import { expireStaleApprovals } from '#layers/agents/core/engine/actions'
import { listRuns } from '#layers/agents/core/engine/api'
import { personLimits, personUsage } from '#layers/agents/core/engine/usage'

// The signed-in person's runs (a founder sees everyone's), with their usage of the last 24 hours and their limits.
export default defineEventHandler(async (event) => {
  // Approvals past their 72 hours are expired before anything is shown.
  await expireStaleApprovals(await useDb(), new Date())
  const user = currentUser(event)
  const db = await useDb()
  const [items, usage] = await Promise.all([listRuns(db, user), personUsage(db, user.email, new Date())])
  return { items, usage, limits: personLimits(process.env) }
})
