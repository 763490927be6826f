import { z } from 'zod'
import { importSkill } from '#layers/skills/core/exchange'

// Import of a SKILL.md bundle (tar) or a bare SKILL.md, sent base64-encoded in JSON (writes
// accept JSON only: request-policy.ts), 5 MB at most once decoded.
const ImportBody = z.object({
  filename: z.string().max(200).optional(),
  content: z.string().min(1, 'content: the bundle, base64-encoded').max(7_000_000, 'content: a skill bundle is 5 MB at most').regex(/^[A-Za-z0-9+/]+={0,2}$/, 'content: base64'),
}).strict()

export default defineEventHandler(async (event) => {
  const body = validInput(ImportBody, await readBody(event).catch(() => undefined))
  const actor = skillActor(event)
  const db = await useSkillsDb()
  const skill = await skillCall(async () => await importSkill(db, actor, Buffer.from(body.content, 'base64')))
  await reindexSkills(db)
  return skill
})
