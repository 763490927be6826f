import { CreateSkillBody, createSkill } from '#layers/skills/core/library'

// A skill written by hand: version 1, enabled for its author.
export default defineEventHandler(async (event) => {
  const body = validInput(CreateSkillBody, await readBody(event).catch(() => undefined))
  const actor = skillActor(event)
  const db = await useSkillsDb()
  const skill = await skillCall(async () => await createSkill(db, actor, body))
  await reindexSkills(db)
  return skill
})
