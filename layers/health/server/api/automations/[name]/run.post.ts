import { z } from 'zod'
import { processLauncher, runAutomateNow, RunNowBody, RunNowError } from '#layers/health/core/run-now'

const Params = z.object({ name: z.string().min(1).max(100) })

// Founder only (server/core/access.ts): runs the automate now, as its schedule would (or its
// dry run), through the supervision wrapper — its progress and log are its run log's newest row.
export default defineEventHandler(async (event) => {
  const { name } = await getValidatedRouterParams(event, Params.parse)
  const { mode } = await readValidatedBody(event, RunNowBody.parse)
  const user = currentUser(event)
  const launch = processLauncher({ root: process.env.SYNEDRE_HOME || process.cwd(), env: process.env, log: line => console.error(line) })
  try {
    setResponseStatus(event, 202)
    return await runAutomateNow({ db: await useDb(), launch }, name, mode, user.email)
  }
  catch (error) {
    if (error instanceof RunNowError)
      throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
})
