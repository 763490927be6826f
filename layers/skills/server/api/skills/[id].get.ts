import { skillView } from '#layers/skills/core/library'

// A skill's page: the document, its versions, its files, whether it is enabled for me.
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const actor = skillActor(event)
  return await skillCall(async () => await skillView(await useSkillsDb(), actor, id))
})
