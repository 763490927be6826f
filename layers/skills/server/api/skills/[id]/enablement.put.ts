import { z } from 'zod'
import { setEnabled } from '#layers/skills/core/library'

// "Enable for me" / "Disable for me": personal, so a viewer may do it too (access.ts).
export default defineEventHandler(async (event) => {
  const id = skillId(event)
  const body = validInput(z.object({ enabled: z.boolean() }).strict(), await readBody(event).catch(() => undefined))
  const actor = skillActor(event)
  return { id, enabled: await skillCall(async () => await setEnabled(await useSkillsDb(), actor.email, id, body.enabled)) }
})
