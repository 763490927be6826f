import { listRouting } from '../../../../core/routing-store'

export default defineEventHandler(async () => await listRouting(await useDb()))
