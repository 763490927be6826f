import { exportSkill } from '#layers/skills/core/exchange'

// The SKILL.md bundle (tar): SKILL.md and the shareable files under references/; its fingerprint is kept.
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const actor = skillActor(event)
  const bundle = await skillCall(async () => await exportSkill(await useSkillsDb(), actor, id))
  setResponseHeaders(event, {
    'content-type': 'application/x-tar',
    'content-disposition': `attachment; filename="${bundle.filename}"`,
    'x-skill-fingerprint': bundle.fingerprint,
  })
  return bundle.data
})
