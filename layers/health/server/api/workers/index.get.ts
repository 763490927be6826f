import { listHostWorkers } from '#layers/health/core/workers'

// The spawn workers by host: state, last heartbeat, running spawns, version (any signed-in role).
export default defineEventHandler(async () => {
  return await listHostWorkers(await useDb())
})
