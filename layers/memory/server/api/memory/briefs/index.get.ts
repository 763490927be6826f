import { listMissionBriefs } from '#layers/memory/core/mission-briefs'

// Any signed-in role: every tenant with its mission brief (null when none is written).
export default defineEventHandler(async () => ({ tenants: await listMissionBriefs(await useDb()) }))
