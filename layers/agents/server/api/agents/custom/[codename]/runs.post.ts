import { customRunContext } from '#layers/agents/core/custom/access'
import { editableAgent } from '#layers/agents/core/custom/agents'
import { CodenameParams, TestRunBody } from '#layers/agents/core/custom/api'
import { runView } from '#layers/agents/core/engine/api'
import { createRun, driveRun } from '#layers/agents/core/engine/loop'
import { fileLimits } from '#layers/agents/core/files/limits'
import { attachFiles, fileSources, pendingUploads } from '#layers/agents/core/files/uploads'

// The Chat tab: a run of the agent under its own allowlist, asked by its owner, a founder or a
// person it is shared with (any level; a viewer's run only reads),
// driven to its end (or an approval) and answered as the run page shows it. The uploads it
// names (fileIds, the person's, given to no run yet) are its inputs, in its working context.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, TestRunBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    await editableAgent(engine.db, user, codename, 'use')
    const files = await pendingUploads(engine.db, user, body.fileIds, fileLimits(process.env))
    const context = await customRunContext(engine.db, engine.registry, { codename, request: body.request, trigger: 'interactive', surface: 'api', actingUser: { id: user.id, email: user.email, role: user.role } })
    const run = await createRun(engine, { ...context, sources: [...(context.sources ?? []), ...fileSources(files)] })
    await attachFiles(engine.db, user, files.map(file => file.id), { id: run.id, conversationId: null })
    await driveRun(engine, run.id)
    return await runView(engine.db, run.id, user)
  })
})
