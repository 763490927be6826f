import { spawnEngineStatus } from '#layers/spawn/core/queries'

// The spawn engine at a glance: switched off or not (ATLAS_SPAWN_DISABLED), queue, running spawns, slots.
export default defineEventHandler(async () => {
  return await spawnEngineStatus(await useDb(), process.env)
})
