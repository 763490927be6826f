import { importSkill } from '../../../core/exchange'

// Import of a SKILL.md bundle (tar) or a bare SKILL.md, sent as the raw request body (5 MB at most).
export default defineEventHandler(async (event) => {
  const actor = skillActor(event)
  const data = await readRawBody(event, false)
  if (!data || data.length === 0) throw createError({ statusCode: 400, statusMessage: 'send the SKILL.md or its bundle as the request body', data: { code: 'empty_bundle' } })
  if (data.length > 5_000_000) throw createError({ statusCode: 413, statusMessage: 'a skill bundle is 5 MB at most', data: { code: 'too_large' } })
  const db = await useSkillsDb()
  return await skillCall(async () => await importSkill(db, actor, Buffer.from(data)))
})
