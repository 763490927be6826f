import { z } from 'zod'
import { runDebrief } from '#layers/learning/core/debrief/debrief'

const Body = z.object({
  projectId: z.uuid(),
  force: z.boolean().default(false),
  dryRun: z.boolean().default(false),
})

// Operator+ (a write): the post-project debrief of one project; the note lands in the vault
// inbox as a draft (never the permanent zone), for a person to review and promote.
export default defineEventHandler(async (event) => {
  const body = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  try {
    return await runDebrief(
      { db: await useDb(), vaultDir: useMemoryConfig().vaultDir, now: () => new Date(), model: await useDebriefModel() },
      { project: body.projectId, force: body.force, dryRun: body.dryRun, actor: user.email },
    )
  }
  catch (error) {
    throwLearningHttpError(error)
  }
})
