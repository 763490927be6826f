// The agent engine end to end on both databases, offline and deterministic (P8): a scripted
// tool plan recalls a scar, reads a vault note, creates a work item (undone afterwards from
// its snapshot), asks to start a spawn (paused, approved by the operator, the spawn queued),
// and the run's steps, sources, model, tokens and cost are on its rows. Then the policy: a
// viewer's agent cannot write, an absent tool cannot be called, an approval past 72 hours
// cannot be used, standing approvals granted and revoked (audited), denial, rerun, limits.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentApprovals, agentRunSteps } from '#db/schema/agent-runs'
import { atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { hubAudit } from '#db/schema/hub'
import { learnLessons } from '#db/schema/learn'
import { workChantiers } from '#db/schema/work'
import { workTasks } from '#db/schema/worksites'
import { createAiFacade } from '#layers/ai/core/facade'
import { hubToolPorts } from '#layers/hub/core/agent-ports'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { memoryFolders } from '#layers/memory/tests/fixtures/folders'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { decideApproval, expireStaleApprovals, rerun, undoWrite } from '../../core/engine/actions'
import type { RunContextRequest } from '../../core/engine/context'
import { EngineError } from '../../core/engine/errors'
import { firstToolRegistry } from '../../core/engine/first-tools'
import { startRun, type EngineDeps } from '../../core/engine/loop'
import { PROMPT_LAYER_ORDER } from '../../core/engine/prompt'
import { grantStandingApproval, revokeStandingApproval } from '../../core/engine/standing'
import { getRun, runSteps } from '../../core/engine/store'
import { UsageLimitError } from '../../core/engine/usage'
import { seedAgents } from '../../core/seed'

const OPERATOR = { id: null, email: 'op@studio.test', role: 'operator' as const }
const VIEWER = { id: null, email: 'viewer@studio.test', role: 'viewer' as const }
const plan = (steps: unknown[]) => `Please handle the webhook retries.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describeOnBothDatabases('agent engine', (database) => {
  const folders = memoryFolders('agents-engine-')
  let jobId = ''
  let spawnTaskId = ''
  let otherTaskId = ''
  let deps: EngineDeps

  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    await db.insert(learnLessons).values({ title: 'Webhook retried forever', description: 'A webhook without a retry cap hammered the client API.', checkAdded: 'Cap webhook retries', importance: 5, agent: null })
    mkdirSync(join(folders.vaultDir, 'permanent'), { recursive: true })
    writeFileSync(join(folders.vaultDir, 'permanent', 'webhooks.md'), '---\ntitle: Webhooks\n---\n\n# Webhooks\n\nRetries are capped at five, with backoff.\n')
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir }, { sources: ['scar'] })
    const site = await worksite(db, 2)
    jobId = site.job.id
    spawnTaskId = site.tasks[0]!.id
    otherTaskId = site.tasks[1]!.id
    const [message] = await db.insert(atlasMessages).values({ dedupeKey: `engine-${Math.random()}`, rawSha256: '0'.repeat(64), rawSize: 10, mailbox: 'INBOX', subject: 'Webhook retries' } as typeof atlasMessages.$inferInsert).returning({ id: atlasMessages.id })
    await db.update(workChantiers).set({ sourceMessageId: message!.id }).where(eq(workChantiers.id, site.chantier.id))
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

  const context = (request: string, person: RunContextRequest['actingUser'] = OPERATOR, extra: Partial<RunContextRequest> = {}): RunContextRequest => ({
    surface: 'api', actingUser: person, agent: { codename: 'personal', ownerEmail: person.email }, regime: 'user', request,
    instructions: [{ source: 'instructions:v1', text: 'Be brief.' }], ...extra,
  })

  it('runs the scripted plan end to end: recall, note, work item (undone), spawn after approval — all on the run\'s rows', async () => {
    const { db } = database()
    const paused = await startRun(deps, context(plan([
      { call: 'recall_memory', input: { query: 'webhook retry cap' } },
      { call: 'read_vault_note', input: { path: 'permanent/webhooks.md' } },
      { call: 'create_work_item', input: { jobId, title: 'Cap the webhook retries' } },
      { call: 'start_spawn', input: { taskId: spawnTaskId } },
      { answer: 'The retries task exists and a spawn is queued.' },
    ])))
    expect(paused.status).toBe('awaiting_approval')
    expect(await db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, spawnTaskId))).toEqual([])
    const [approval] = await db.select().from(agentApprovals).where(eq(agentApprovals.runId, paused.id))
    expect(approval).toMatchObject({ status: 'pending', tool: 'start_spawn', payload: { taskId: spawnTaskId }, askedOf: OPERATOR.email })
    expect(approval!.expiresAt.getTime() - approval!.requestedAt.getTime()).toBe(72 * 3600_000)

    const done = await decideApproval(deps, approval!.id, 'approve', OPERATOR)
    expect(done).toMatchObject({ status: 'succeeded', answer: '[offline] The retries task exists and a spawn is queued.', provider: 'offline', model: 'offline-rules-v1', iterations: 5, tokensIn: 0, tokensOut: 0, costUsd: 0, error: null })
    const [spawn] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, spawnTaskId))
    expect(spawn).toMatchObject({ status: 'queued', queuedBy: expect.stringContaining(`agent-run:${done.id}`) })

    const steps = await runSteps(db, done.id)
    const tools = steps.filter(step => step.kind === 'tool')
    expect(tools.map(step => [step.tool, step.toolClass, step.status])).toEqual([
      ['recall_memory', 'READ', 'ok'], ['read_vault_note', 'READ', 'ok'], ['create_work_item', 'WRITE', 'ok'], ['start_spawn', 'EXTERNAL_WRITE', 'ok'],
    ])
    expect(tools[0]!.sources).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'scar', title: 'Webhook retried forever' })]))
    expect(tools[1]!.sources).toEqual([{ kind: 'note', ref: 'permanent/webhooks.md', title: 'Webhooks' }])
    expect(tools[1]!.output).toContain('Retries are capped at five')
    const models = steps.filter(step => step.kind === 'model')
    expect(models).toHaveLength(5)
    expect(models.every(step => step.callId && step.provider === 'offline' && step.model === 'offline-rules-v1')).toBe(true)
    const ledger = await db.execute<{ n: string }>(sql`select count(*) as n from ai_consumption where call_id in (select call_id from agent_run_steps where run_id = ${done.id}::uuid)`)
    expect(Number(ledger[0]!.n)).toBe(5)
    expect((done.promptLayers as Array<{ layer: string }>).map(layer => layer.layer)).toEqual([...PROMPT_LAYER_ORDER])
    expect(done.context).toMatchObject({ regime: 'user', budget: { iterations: 8 }, actingUser: { email: OPERATOR.email } })

    const write = tools[2]!
    const created = (write.write as { id: string }).id
    expect(await db.select().from(workTasks).where(eq(workTasks.id, created))).toHaveLength(1)
    const undone = await undoWrite(deps, done.id, write.id, OPERATOR)
    expect(undone.undoneBy).toBe(OPERATOR.email)
    expect(await db.select().from(workTasks).where(eq(workTasks.id, created))).toEqual([])
    await expect(undoWrite(deps, done.id, write.id, OPERATOR)).rejects.toMatchObject({ code: 'already_undone' })
    await expect(undoWrite(deps, done.id, tools[3]!.id, OPERATOR)).rejects.toMatchObject({ code: 'not_undoable' })
    expect(await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'agent_approval_approved'), eq(hubAudit.target, done.id)))).toHaveLength(1)
  })

  it('a viewer\'s personal agent cannot use a WRITE tool, and a tool absent from the registry cannot be called', async () => {
    const { db } = database()
    const before = await db.select().from(workTasks)
    const run = await startRun(deps, context(plan([
      { calls: [{ call: 'create_work_item', input: { jobId, title: 'Viewer write' } }, { call: 'delete_audit_rows', input: { all: true } }, { call: 'recall_memory', arguments: '{bad json' }] },
      { answer: 'I could not.' },
    ]), VIEWER))
    expect(run.status).toBe('succeeded')
    const tools = (await runSteps(db, run.id)).filter(step => step.kind === 'tool')
    expect(tools.map(step => [step.tool, step.status])).toEqual([['create_work_item', 'denied'], ['delete_audit_rows', 'denied'], ['recall_memory', 'error']])
    expect(tools[0]!.error).toMatch(/^role_forbids_write/)
    expect(tools[1]!.error).toMatch(/^unknown_tool/)
    expect(tools[2]!.error).toMatch(/^malformed_arguments/)
    expect(await db.select().from(workTasks)).toHaveLength(before.length)
    // The model saw each refusal as a tool result.
    const conversation = run.conversation as Array<{ role: string, isError?: boolean }>
    expect(conversation.filter(message => message.role === 'tool' && message.isError)).toHaveLength(3)
  })

  it('an approval older than 72 hours cannot be used; a denied call is told to the model', async () => {
    const { db } = database()
    const paused = await startRun(deps, context(plan([{ call: 'start_spawn', input: { taskId: otherTaskId } }, { answer: 'Asked.' }])))
    const [approval] = await db.select().from(agentApprovals).where(eq(agentApprovals.runId, paused.id))
    const late = { ...deps, now: () => new Date(approval!.requestedAt.getTime() + 72 * 3600_000 + 1000) }
    await expect(decideApproval(late, approval!.id, 'approve', OPERATOR)).rejects.toMatchObject({ code: 'approval_expired', status: 409 })
    expect(await db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, otherTaskId))).toEqual([])
    const [expired] = await db.select().from(agentApprovals).where(eq(agentApprovals.id, approval!.id))
    expect(expired!.status).toBe('expired')
    await expect(decideApproval(deps, approval!.id, 'approve', OPERATOR)).rejects.toMatchObject({ code: 'approval_not_pending' })

    const again = await startRun(deps, context(plan([{ call: 'start_spawn', input: { taskId: otherTaskId } }, { answer: 'Understood.' }])))
    const [second] = await db.select().from(agentApprovals).where(eq(agentApprovals.runId, again.id))
    await expect(decideApproval(deps, second!.id, 'approve', VIEWER)).rejects.toMatchObject({ code: 'not_asked', status: 403 })
    const denied = await decideApproval(deps, second!.id, 'deny', OPERATOR, 'not now')
    expect(denied.status).toBe('succeeded')
    const [step] = await db.select().from(agentRunSteps).where(eq(agentRunSteps.id, second!.stepId))
    expect(step).toMatchObject({ status: 'rejected', error: `denied by ${OPERATOR.email}: not now` })
    expect(await db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, otherTaskId))).toEqual([])

    // Nobody decided within 72 hours: the sweep expires the approval and fails the run.
    const forgotten = await startRun(deps, context(plan([{ call: 'start_spawn', input: { taskId: otherTaskId } }])))
    const [waiting] = await db.select().from(agentApprovals).where(eq(agentApprovals.runId, forgotten.id))
    expect(await expireStaleApprovals(db, new Date(waiting!.requestedAt.getTime() + 71 * 3600_000))).toBe(0)
    expect(await expireStaleApprovals(db, new Date(waiting!.expiresAt.getTime() + 1))).toBe(1)
    expect(await getRun(db, forgotten.id)).toMatchObject({ status: 'failed', error: 'approval_expired' })
  })

  it('a standing approval lets the agent spawn without asking until it is revoked (both audited)', async () => {
    const { db } = database()
    await expect(grantStandingApproval(db, deps.registry, 'personal', 'create_work_item', OPERATOR.email)).rejects.toMatchObject({ code: 'not_external_write' })
    await grantStandingApproval(db, deps.registry, 'personal', 'start_spawn', OPERATOR.email)
    // The first test's spawn ended: the message may have a live spawn again.
    await db.update(atlasSpawns).set({ status: 'succeeded', endedAt: new Date() }).where(eq(atlasSpawns.taskId, spawnTaskId))
    await expect(grantStandingApproval(db, deps.registry, 'personal', 'start_spawn', OPERATOR.email)).rejects.toMatchObject({ code: 'already_granted' })
    const run = await startRun(deps, context(plan([{ call: 'start_spawn', input: { taskId: otherTaskId } }, { answer: 'Queued.' }])))
    expect(run.status).toBe('succeeded')
    expect(await db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, otherTaskId))).toHaveLength(1)
    await revokeStandingApproval(db, 'personal', 'start_spawn', OPERATOR.email)
    const asks = await startRun(deps, context(plan([{ call: 'start_spawn', input: { taskId: otherTaskId } }, { answer: 'Asked.' }])))
    expect(asks.status).toBe('awaiting_approval')
    const audit = await db.select({ action: hubAudit.action }).from(hubAudit).where(eq(hubAudit.target, 'personal:start_spawn'))
    expect(audit.map(row => row.action)).toEqual(['agent_standing_approval_granted', 'agent_standing_approval_revoked'])
  })

  it('a rerun is a new linked run; per-person limits refuse a run before it starts; bad context is refused', async () => {
    const { db } = database()
    const first = await startRun(deps, context(plan([{ answer: 'Hello.' }]), { id: null, email: 'limits@studio.test', role: 'operator' }))
    const second = await rerun(deps, first.id, { email: 'limits@studio.test', role: 'operator' })
    expect(second).toMatchObject({ rerunOf: first.id, trigger: 'rerun', status: 'succeeded', answer: '[offline] Hello.' })
    const limited = { ...deps, limits: { runsPerDay: 2, tokensPerDay: 1_000_000, costUsdPerDay: 10 } }
    await expect(startRun(limited, context('again', { id: null, email: 'limits@studio.test', role: 'operator' }))).rejects.toBeInstanceOf(UsageLimitError)
    await expect(startRun(deps, context('   '))).rejects.toBeInstanceOf(EngineError)
    await expect(rerun(deps, first.id, VIEWER)).rejects.toMatchObject({ code: 'not_yours' })
    expect((await runSteps(db, second.id)).length).toBe(1)
  })

  it('stops at the iteration budget', async () => {
    const run = await startRun(deps, context(plan([{ call: 'recall_memory', input: { query: 'a' } }, { call: 'recall_memory', input: { query: 'b' } }, { call: 'recall_memory', input: { query: 'c' } }]), OPERATOR, { budget: { iterations: 2 } }))
    expect(run).toMatchObject({ status: 'stopped', iterations: 2, error: 'budget: 2 iterations used' })
  })
})
