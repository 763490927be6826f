// The personal agent with no model configured (issue 36, Deliver 6), through the chat's core and
// the hub's own tool ports, on both databases: asked about the inbox it searches the inbox and
// lists the message found (subject, sender, date, link), never raw JSON; in the same
// conversation a worksites question searches the worksites and the notice that no model is
// configured is not said again; an inbox search that finds nothing says so with its words.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { createAiFacade } from '#layers/ai/core/facade'
import { NO_MODEL_NOTICE } from '#layers/ai/core/offline/readable'
import { hubToolPorts } from '#layers/hub/core/agent-ports'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { memoryFolders } from '#layers/memory/tests/fixtures/folders'
import { recordFromMessage, worksite } from '#layers/worksites/tests/fixtures/world'
import { chatRunContext } from '../../core/engine/chat'
import { customToolRegistry } from '../../core/custom/delegation'
import { createRun, driveRun, type EngineDeps } from '../../core/engine/loop'
import { runSteps } from '../../core/engine/store'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000001', email: 'op@studio.test', role: 'operator' as const }

describeOnBothDatabases('personal agent offline', (database) => {
  const folders = memoryFolders('agents-offline-')
  let deps: EngineDeps
  let messageId = 0
  let jobId = ''

  beforeAll(async () => {
    const { db } = database()
    const { message } = await recordFromMessage(db, 'question', { subject: 'Refonte du site vitrine' })
    messageId = message.id
    jobId = (await worksite(db, 1)).job.id
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    deps = {
      db,
      chat: request => ai.chatWithTools(request),
      flushLedger: () => ai.flush(),
      registry: customToolRegistry(),
      ports: hubToolPorts({ db, embedder: offlineEmbedder(db), vaultDir: folders.vaultDir, team: [], mailer: () => { throw new Error('no mail in this test') } }),
      log: () => {},
    }
  })
  afterAll(() => folders.remove())

  const ask = async (request: string, conversationId?: string) => {
    const context = await chatRunContext(database().db, OPERATOR, { request, ...(conversationId ? { conversationId } : {}) })
    const run = await driveRun(deps, (await createRun(deps, context)).id)
    const tools = (await runSteps(database().db, run.id)).filter(step => step.kind === 'tool')
    return { run, tools, conversationId: context.conversationId }
  }

  it('asked about the inbox, searches it and lists what it found; then the worksites, without repeating the notice', async () => {
    const first = await ask('What is in my inbox about the refonte?')
    expect(first.run.status).toBe('succeeded')
    expect(first.tools.map(step => [step.tool, step.status, (step.input as { query: string }).query])).toEqual([['search_atlas_messages', 'ok', 'refonte']])
    const answer = first.run.answer!
    expect(answer.startsWith(`[offline]\n${NO_MODEL_NOTICE}\nIn the inbox for «refonte», 1 found:\n- «Refonte du site vitrine» — `)).toBe(true)
    expect(answer).toContain('from claire@client.example')
    expect(answer).toContain(`(/hub/atlas/${messageId})`)
    expect(answer).not.toMatch(/\{"|\[\]|search_atlas_messages/)

    const second = await ask('Et les tâches de la maquette ?', first.conversationId)
    expect(second.tools.map(step => [step.tool, (step.input as { query: string }).query])).toEqual([['search_worksites', 'maquette']])
    expect(second.run.answer).toContain(`«Maquette» — job, todo`)
    expect(second.run.answer).toContain(`(/hub/worksites/jobs/${jobId})`)
    expect(second.run.answer).not.toContain(NO_MODEL_NOTICE)
  })

  it('says so when the inbox has nothing for the words asked', async () => {
    const { run, tools } = await ask('Des courriels sur les zèbres ?')
    expect(tools.map(step => step.tool)).toEqual(['search_atlas_messages'])
    expect(run.answer).toBe(`[offline]\n${NO_MODEL_NOTICE}\nNothing found in the inbox for «zèbres».`)
  })
})
