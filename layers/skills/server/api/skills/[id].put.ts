import { SaveSkillBody, saveSkill } from '#layers/skills/core/library'

// A save: a new version (409 when the skill moved on since the editor opened it).
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const body = validInput(SaveSkillBody, await readBody(event).catch(() => undefined))
  const actor = skillActor(event)
  const db = await useSkillsDb()
  const view = await skillCall(async () => await saveSkill(db, actor, id, body))
  await reindexSkills(db)
  return view
})
