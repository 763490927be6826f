import { z } from 'zod'
import { rejectSkillProposal } from '#layers/learning/core/skills/proposals'

const Params = z.object({ id: z.coerce.number().int().positive() })
const Body = z.object({ note: z.string().trim().max(2_000).optional() })

// Founder only (shared/access.ts): the proposal is kept, marked rejected with who and why.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const body = await readValidatedBody(event, input => Body.parse(input ?? {}))
  try {
    return await rejectSkillProposal(await useDb(), { id, actor: currentUser(event).email, note: body.note })
  }
  catch (error) {
    throwLearningHttpError(error)
  }
})
