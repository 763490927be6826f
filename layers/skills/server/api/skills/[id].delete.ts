import { deleteSkill } from '#layers/skills/core/library'

// Deletes one's own skill; a built-in answers 409 (disable it instead).
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const actor = skillActor(event)
  const db = await useSkillsDb()
  await skillCall(async () => await deleteSkill(db, actor, id))
  await reindexSkills(db)
  return { deleted: id }
})
