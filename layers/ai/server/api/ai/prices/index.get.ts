import { listPrices } from '../../../../core/prices'

export default defineEventHandler(async () => await listPrices(await useDb()))
