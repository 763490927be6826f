import { z } from 'zod'
import { promoteSkillProposal } from '#layers/learning/core/skills/proposals'

const Params = z.object({ id: z.coerce.number().int().positive() })
const Body = z.object({
  note: z.string().trim().max(2_000).optional(),
  name: z.string().trim().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'name: lowercase words joined by hyphens').max(64).optional(),
  description: z.string().trim().min(1).max(1_000).optional(),
  body: z.string().trim().min(1).max(20_000).optional(),
})

// Founder only (shared/access.ts): the one path into the skills registry.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const body = await readValidatedBody(event, input => Body.parse(input ?? {}))
  try {
    return await promoteSkillProposal(await useDb(), { id, actor: currentUser(event).email, ...body })
  }
  catch (error) {
    throwLearningHttpError(error)
  }
})
