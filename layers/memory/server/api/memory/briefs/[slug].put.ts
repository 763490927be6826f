import { z } from 'zod'
import { MISSION_BRIEF_MAX_CHARS, saveMissionBrief } from '#layers/memory/core/mission-briefs'

const Params = z.object({ slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'slug: a tenant slug') })
const Body = z.object({ brief: z.string().max(MISSION_BRIEF_MAX_CHARS, `brief: at most ${MISSION_BRIEF_MAX_CHARS} characters`) }).strict()

// Operators and founders (a write): the tenant's mission brief replaced (empty removes it),
// audited; every later spawn for the tenant carries it in its briefing.
export default defineEventHandler(async (event) => {
  const { slug } = await getValidatedRouterParams(event, Params.parse)
  const { brief } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  try {
    return await saveMissionBrief(await useDb(), { slug, brief, actor: user.email })
  }
  catch (error) {
    throwMemoryEditError(error)
  }
})
