import { memoryStats } from '#layers/memory/core/stats'

// Index statistics: chunks per source type (models, freshness), notes per vault sub-space.
export default defineEventHandler(async () => await memoryStats(await useDb()))
