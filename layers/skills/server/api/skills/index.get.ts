import { listLibrary } from '#layers/skills/core/library'

// The library of the signed-in person: My skills (enabled, and their drafts) and Discover, by real use.
export default defineEventHandler(async (event) => {
  const actor = skillActor(event)
  return await skillCall(async () => await listLibrary(await useSkillsDb(), actor.email))
})
