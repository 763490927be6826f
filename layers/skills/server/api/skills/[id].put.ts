import { SaveSkillBody, saveSkill } from '../../../core/library'

// A save: a new version (409 when the skill moved on since the editor opened it).
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const body = skillInput(SaveSkillBody, await readBody(event).catch(() => undefined))
  const actor = skillActor(event)
  return await skillCall(async () => await saveSkill(await useSkillsDb(), actor, id, body))
})
