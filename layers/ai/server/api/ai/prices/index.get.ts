import { listPrices } from '#layers/ai/core/prices'

export default defineEventHandler(async () => await listPrices(await useDb()))
