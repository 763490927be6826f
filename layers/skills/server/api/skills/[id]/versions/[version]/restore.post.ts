import { z } from 'zod'
import { restoreSkillVersion, RestoreSkillBody } from '#layers/skills/core/library'

const Params = z.object({
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  version: z.coerce.number().int().min(1).max(1_000_000),
})

// Restores an old version as a new one (409 when the skill moved on since the page showed it).
export default defineEventHandler(async (event) => {
  const { id, version } = validInput(Params, getRouterParams(event))
  const body = validInput(RestoreSkillBody, (await readBody(event).catch(() => undefined)) ?? {})
  const actor = skillActor(event)
  const db = await useSkillsDb()
  const view = await skillCall(async () => await restoreSkillVersion(db, actor, id, version, body))
  await reindexSkills(db)
  return view
})
