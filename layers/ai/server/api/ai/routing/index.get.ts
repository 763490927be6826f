import { listRouting } from '#layers/ai/core/routing-store'

export default defineEventHandler(async () => await listRouting(await useDb()))
