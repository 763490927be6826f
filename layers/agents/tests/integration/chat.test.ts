// The chat panel's core on both databases (issue 19, Deliver 6): a turn is a run of the
// person's own agent written first and driven after (the panel streams it), answered offline
// from a vault note the recall finds; a second turn continues the conversation with the first
// as context; another person's conversation does not exist for them (and no run is written);
// the page the chat was opened from is the run's working context; a stream tick reads only
// the steps after the last one it sent.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentRuns } from '#db/schema/agent-runs'
import { createAiFacade } from '#layers/ai/core/facade'
import { hubToolPorts } from '#layers/hub/core/agent-ports'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { memoryFolders } from '#layers/memory/tests/fixtures/folders'
import { chatRunContext, conversationTurns, historyText, listConversations, runProgress } from '../../core/engine/chat'
import { EngineError } from '../../core/engine/errors'
import { firstToolRegistry } from '../../core/engine/first-tools'
import { createRun, driveRun, type EngineDeps } from '../../core/engine/loop'
import type { PromptLayer } from '../../core/engine/prompt'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000001', email: 'op@studio.test', role: 'operator' as const }
const VIEWER = { id: '00000000-0000-4000-8000-000000000002', email: 'viewer@studio.test', role: 'viewer' as const }

describeOnBothDatabases('agent chat', (database) => {
  const folders = memoryFolders('agents-chat-')
  let deps: EngineDeps
  let conversationId = ''
  let firstRunId = ''

  beforeAll(async () => {
    const { db } = database()
    mkdirSync(join(folders.vaultDir, 'permanent'), { recursive: true })
    writeFileSync(join(folders.vaultDir, 'permanent', 'webhook-retries.md'), '---\ntitle: Webhook retries\n---\n\n# Webhook retries\n\nWebhook retries are capped at five attempts, with exponential backoff.\n')
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir }, { sources: ['note'] })
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    deps = {
      db,
      chat: request => ai.chatWithTools(request),
      flushLedger: () => ai.flush(),
      registry: firstToolRegistry(),
      ports: hubToolPorts({ db, embedder: offlineEmbedder(db), vaultDir: folders.vaultDir, team: ['team@studio.test'], mailer: () => { throw new Error('no mail in this test') } }),
      log: () => {},
    }
  })
  afterAll(() => folders.remove())

  it('writes a turn before driving it, then answers from the vault note the recall found', async () => {
    const { db } = database()
    const context = await chatRunContext(db, OPERATOR, { request: 'How many times are webhook retries attempted?' })
    expect(context).toMatchObject({ surface: 'hub_chat', regime: 'user', agent: { codename: 'personal:op@studio.test', ownerEmail: OPERATOR.email }, memory: '', sources: [] })
    const created = await createRun(deps, context)
    expect(created).toMatchObject({ status: 'running', conversationId: context.conversationId, iterations: 0 })
    expect((await runProgress(db, created.id, 0)).steps).toEqual([])
    const done = await driveRun(deps, created.id)
    expect(done.status).toBe('succeeded')
    expect(done.answer).toContain('capped at five attempts')
    const progress = await runProgress(db, created.id, 0)
    expect(progress.status).toBe('succeeded')
    expect(progress.steps.map(step => step.seq)).toEqual([1, 2, 3])
    expect(progress.steps[1]).toMatchObject({ kind: 'tool', tool: 'recall_memory', status: 'ok' })
    expect(progress.steps[1]!.sources).toContainEqual(expect.objectContaining({ kind: 'note', ref: 'permanent/webhook-retries.md' }))
    // A tick after the last step it sent reads nothing again.
    expect((await runProgress(db, created.id, 3)).steps).toEqual([])
    conversationId = context.conversationId
    firstRunId = created.id
  })

  it('continues the conversation with the previous turns as context, and lists it for its person only', async () => {
    const { db } = database()
    const context = await chatRunContext(db, OPERATOR, { request: 'And with which backoff?', conversationId })
    expect(context.conversationId).toBe(conversationId)
    expect(context.memory).toContain('Person: How many times are webhook retries attempted?')
    expect(context.memory).toContain('capped at five attempts')
    const second = await driveRun(deps, (await createRun(deps, context)).id)
    const memory = (second.promptLayers as PromptLayer[]).find(layer => layer.layer === 'memory')
    expect(memory?.text).toContain('Earlier in this conversation')
    const turns = await conversationTurns(db, OPERATOR, conversationId)
    expect(turns.map(turn => turn.runId)).toEqual([firstRunId, second.id])
    const listed = await listConversations(db, OPERATOR)
    expect(listed).toContainEqual(expect.objectContaining({ id: conversationId, turns: 2, title: 'How many times are webhook retries attempted?' }))
    expect(await listConversations(db, VIEWER)).toEqual([])
  })

  it('refuses another person\'s conversation, and an unknown one, as not found — writing no run', async () => {
    const { db } = database()
    const count = async () => Number((await db.select({ n: sql<number>`count(*)::int` }).from(agentRuns))[0]!.n)
    const before = await count()
    await expect(conversationTurns(db, VIEWER, conversationId)).rejects.toMatchObject({ code: 'not_found', status: 404 })
    await expect(chatRunContext(db, VIEWER, { request: 'What did they ask?', conversationId })).rejects.toBeInstanceOf(EngineError)
    // A fresh id chosen by the client is not a conversation either (ids are the server's).
    await expect(chatRunContext(db, OPERATOR, { request: 'Hello', conversationId: '6f1c1a52-3c1e-4c55-9a53-6d0d7b0c3a11' })).rejects.toMatchObject({ status: 404 })
    expect(await count()).toBe(before)
    expect(
      (await db.select().from(agentRuns).where(eq(agentRuns.conversationId, conversationId))).every(
        run => run.actingEmail === OPERATOR.email,
      ),
    ).toBe(true)
  })

  it('passes the page the chat was opened from as working context', async () => {
    const { db } = database()
    const context = await chatRunContext(db, VIEWER, { request: 'What is this?', page: { path: '/hub/agents/runs/abc', recordId: 'abc', title: 'Agent run' } })
    expect(context.sources).toEqual([
      { kind: 'page', ref: '/hub/agents/runs/abc', title: 'Agent run' },
      { kind: 'record', ref: 'abc', title: 'the record shown on /hub/agents/runs/abc' },
    ])
    const run = await createRun(deps, context)
    const working = (run.promptLayers as PromptLayer[]).find(layer => layer.layer === 'working_context')
    expect(working?.text).toContain('/hub/agents/runs/abc')
    expect(working?.sources).toEqual(['page:/hub/agents/runs/abc', 'record:abc'])
    expect(run.conversationId).toBe(context.conversationId)
  })
})

it('keeps only the most recent turns, each cut short, in the history', () => {
  const turns = Array.from({ length: 12 }, (_, index) => ({ runId: String(index), request: `question ${index}`, answer: 'x'.repeat(5000), status: 'succeeded', error: null, createdAt: new Date() }))
  const text = historyText(turns)
  expect(text).not.toContain('question 3\n')
  expect(text).toContain('question 4')
  expect(text).toContain('question 11')
  expect(text.length).toBeLessThan(8 * 3200)
  expect(historyText([])).toBe('')
})
