// The personal agent's changes to what exists (issue 35, Deliver 4), through the engine with the
// scripted offline model, on both databases: a task moved and assigned (worksites' own
// transitions: the history names the run), a question answered, an inbox note edited (the
// permanent zone refused), a lesson attached to a spawn — each ran at once and undone from its
// snapshot; a client reply drafted only after a person approved it, never sent, and withdrawn
// by its undo. An undo after a person changed the record is refused and leaves their change.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentApprovals } from '#db/schema/agent-runs'
import { atlasReplyDrafts } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { hubUsers } from '#db/schema/hub'
import { learnLessons } from '#db/schema/learn'
import { workChantiers, workQuestions } from '#db/schema/work'
import { workTasks, workTransitions } from '#db/schema/worksites'
import { createAiFacade } from '#layers/ai/core/facade'
import { hubToolPorts } from '#layers/hub/core/agent-ports'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { memoryFolders } from '#layers/memory/tests/fixtures/folders'
import { databaseLoopRecords } from '#layers/spawn/core/spawn-loop-records'
import { writeReplyDraft } from '#layers/spawn/core/reply-draft'
import { transition } from '#layers/worksites/core/transitions'
import { recordFromMessage, worksite } from '#layers/worksites/tests/fixtures/world'
import { decideApproval, undoWrite } from '../../core/engine/actions'
import type { RunContextRequest } from '../../core/engine/context'
import { effectiveAccess } from '../../core/custom/access'
import { customToolRegistry } from '../../core/custom/delegation'
import { startRun, type EngineDeps } from '../../core/engine/loop'
import { runSteps } from '../../core/engine/store'
import { WRITE_TOOL_NAMES } from '../../core/engine/write-tools'
import { seedAgents } from '../../core/seed'

const OPERATOR = { id: null, email: 'op@studio.test', role: 'operator' as const }
const VIEWER = { id: null, email: 'viewer@studio.test', role: 'viewer' as const }
const SIGNATURE = 'L\'équipe du test'
const plan = (steps: unknown[]) => `Do it.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describeOnBothDatabases('personal agent write tools', (database) => {
  const folders = memoryFolders('agents-write-')
  let deps: EngineDeps

  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    await db.insert(hubUsers).values({ email: 'claire@studio.test', name: 'Claire', role: 'operator', passwordHash: 'x' })
    mkdirSync(join(folders.vaultDir, 'inbox'), { recursive: true })
    mkdirSync(join(folders.vaultDir, 'permanent'), { recursive: true })
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    deps = {
      db,
      chat: request => ai.chatWithTools(request),
      flushLedger: () => ai.flush(),
      registry: customToolRegistry(),
      ports: hubToolPorts({ db, embedder: offlineEmbedder(db), vaultDir: folders.vaultDir, team: ['team@studio.test'], signature: SIGNATURE, mailer: () => { throw new Error('the agent never mails') } }),
      log: () => {},
    }
  })
  afterAll(() => folders.remove())

  const context = (request: string, person: RunContextRequest['actingUser'] = OPERATOR): RunContextRequest => ({
    surface: 'hub_chat', actingUser: person, agent: { codename: `personal:${person.email}`, ownerEmail: person.email }, regime: 'user', request,
  })
  const toolSteps = async (runId: string) => (await runSteps(database().db, runId)).filter(step => step.kind === 'tool')

  it('moves a task and gives it an owner through worksites\' transitions; the undo puts both back, once', async () => {
    const { db } = database()
    const site = await worksite(db, 1)
    const taskId = site.tasks[0]!.id
    const run = await startRun(deps, context(plan([
      { call: 'update_work_item', input: { entity: 'task', id: taskId, status: 'in_progress', owner: { email: 'claire@studio.test' } } },
      { call: 'update_work_item', input: { entity: 'task', id: taskId, status: 'todo_later' } },
      { answer: 'Moved.' },
    ])))
    expect(run.status).toBe('succeeded')
    const [moved, refused] = await toolSteps(run.id)
    expect(moved).toMatchObject({ tool: 'update_work_item', toolClass: 'WRITE', status: 'ok', write: { entity: 'work_task', id: taskId, undoable: true } })
    expect(refused).toMatchObject({ status: 'error', error: expect.stringMatching(/^bad_input: "todo_later" is not a task status/) })
    const [user] = await db.select({ id: hubUsers.id }).from(hubUsers).where(eq(hubUsers.email, 'claire@studio.test'))
    const [task] = await db.select().from(workTasks).where(eq(workTasks.id, taskId))
    expect(task).toMatchObject({ status: 'in_progress', ownerUserId: user!.id })
    const history = await db.select().from(workTransitions).where(and(eq(workTransitions.entityId, taskId), eq(workTransitions.kind, 'transition'))).orderBy(asc(workTransitions.id))
    expect(history.at(-1)).toMatchObject({ fromStatus: 'todo', toStatus: 'in_progress', actor: `agent-run:${run.id}:${OPERATOR.email}` })

    await undoWrite(deps, run.id, moved!.id, OPERATOR)
    const [back] = await db.select().from(workTasks).where(eq(workTasks.id, taskId))
    expect(back).toMatchObject({ status: 'todo', ownerUserId: null, ownerAgent: null })
    const undone = await db.select().from(workTransitions).where(eq(workTransitions.entityId, taskId)).orderBy(asc(workTransitions.id))
    expect(undone.slice(-2)).toMatchObject([
      { kind: 'transition', fromStatus: 'in_progress', toStatus: 'todo', actor: OPERATOR.email },
      { kind: 'assignment', owner: null, actor: OPERATOR.email },
    ])
    await expect(undoWrite(deps, run.id, moved!.id, OPERATOR)).rejects.toMatchObject({ code: 'already_undone' })
  })

  it('refuses an undo once a person moved the item since, and leaves their move', async () => {
    const { db } = database()
    const site = await worksite(db, 1)
    const run = await startRun(deps, context(plan([{ call: 'update_work_item', input: { entity: 'chantier', id: site.chantier.id, status: 'active' } }, { answer: 'Started.' }])))
    const [step] = await toolSteps(run.id)
    expect(step!.status).toBe('ok')
    await transition(db, 'chantier', site.chantier.id, { to: 'done', actor: 'claire@studio.test' })
    await expect(undoWrite(deps, run.id, step!.id, OPERATOR)).rejects.toMatchObject({ code: 'undo_refused', message: expect.stringMatching(/changed since/) })
    const state = await deps.ports.updateWorkItem({ entity: 'chantier', id: site.chantier.id, owner: { agent: 'nobody-by-that-name' } }, 'x').catch((error: Error & { code?: string }) => error.code)
    expect(state).toBe('unknown_owner')
    const [, last] = (
      await db.select().from(workTransitions).where(eq(workTransitions.entityId, site.chantier.id)).orderBy(asc(workTransitions.id))
    ).slice(-2)
    expect(last).toMatchObject({ toStatus: 'done', actor: 'claire@studio.test' })

    // A cancellation needs its reason; undone, the chantier is live again and carries none.
    const other = await worksite(db, 1)
    const cancelled = await startRun(deps, context(plan([
      { call: 'update_work_item', input: { entity: 'chantier', id: other.chantier.id, status: 'cancelled' } },
      { call: 'update_work_item', input: { entity: 'chantier', id: other.chantier.id, status: 'cancelled', reason: 'The client withdrew.' } },
      { answer: 'Cancelled.' },
    ])))
    const [unexplained, explained] = await toolSteps(cancelled.id)
    expect(unexplained).toMatchObject({ status: 'error', error: expect.stringMatching(/^reason_required/) })
    expect((await db.select().from(workChantiers).where(eq(workChantiers.id, other.chantier.id)))[0]).toMatchObject({ status: 'cancelled', statusReason: 'The client withdrew.' })
    await undoWrite(deps, cancelled.id, explained!.id, OPERATOR)
    expect((await db.select().from(workChantiers).where(eq(workChantiers.id, other.chantier.id)))[0]).toMatchObject({ status: 'planned', statusReason: null })
  })

  it('answers a question (recorded, never sent); its undo reopens it; a négociation needs its outcome', async () => {
    const { db } = database()
    const { record } = await recordFromMessage(db, 'question', { subject: 'Quel hébergeur ?' })
    const run = await startRun(deps, context(plan([
      { calls: [
        { call: 'answer_registry_record', input: { kind: 'question', id: record.id, answer: 'Scaleway, à Paris.' } },
        { call: 'answer_registry_record', input: { kind: 'negociation', id: record.id, answer: 'Signed.' } },
      ] },
      { answer: 'Answered.' },
    ])))
    const [answered, incomplete] = await toolSteps(run.id)
    expect(answered).toMatchObject({ status: 'ok', write: { entity: 'work_question', id: record.id, undoable: true } })
    expect(incomplete).toMatchObject({ status: 'error', error: expect.stringContaining('outcome: a négociation is settled with an outcome') })
    const [question] = await db.select().from(workQuestions).where(eq(workQuestions.id, record.id))
    expect(question).toMatchObject({ status: 'answered', resolution: 'Scaleway, à Paris.', resolvedBy: `agent-run:${run.id}:${OPERATOR.email}` })

    await undoWrite(deps, run.id, answered!.id, OPERATOR)
    const [reopened] = await db.select().from(workQuestions).where(eq(workQuestions.id, record.id))
    expect(reopened).toMatchObject({ status: 'open', resolution: null, resolvedBy: null, resolvedAt: null })
  })

  it('edits a note of the vault inbox, keeps its front matter, refuses any other zone; the undo restores the text', async () => {
    const inboxNote = join(folders.vaultDir, 'inbox', 'call-notes.md')
    const permanentNote = join(folders.vaultDir, 'permanent', 'hosting.md')
    const original = '---\nauthor: claire\n---\n\nRough notes of the call.\n'
    writeFileSync(inboxNote, original)
    writeFileSync(permanentNote, '# Hosting\n\nParis.\n')
    const run = await startRun(deps, context(plan([
      { calls: [
        { call: 'edit_vault_inbox_note', input: { path: 'inbox/call-notes.md', body: 'Clean notes: the client wants Scaleway.' } },
        { call: 'edit_vault_inbox_note', input: { path: 'permanent/hosting.md', body: 'Overwritten.' } },
        { call: 'edit_vault_inbox_note', input: { path: 'inbox/../permanent/hosting.md', body: 'Overwritten.' } },
      ] },
      { answer: 'Edited.' },
    ])))
    const [edited, permanent, climbing] = await toolSteps(run.id)
    expect(edited).toMatchObject({ status: 'ok', write: { entity: 'vault_inbox_note', id: 'inbox/call-notes.md' } })
    expect(permanent).toMatchObject({ status: 'denied', error: expect.stringMatching(/^guard: only notes of the vault inbox \(inbox\/…\) can be edited; permanent\/hosting\.md is outside it/) })
    expect(climbing!.status).toBe('denied')
    expect(readFileSync(inboxNote, 'utf8')).toBe('---\nauthor: claire\n---\n\nClean notes: the client wants Scaleway.\n')
    expect(readFileSync(permanentNote, 'utf8')).toBe('# Hosting\n\nParis.\n')

    await undoWrite(deps, run.id, edited!.id, OPERATOR)
    expect(readFileSync(inboxNote, 'utf8')).toBe(original)
  })

  it('drafts a client reply only once a person approved it, never sends it; its undo gives back the draft it replaced', async () => {
    const { db } = database()
    const { message } = await recordFromMessage(db, 'question', { subject: 'Délai de livraison ?' })
    const earlier = await writeReplyDraft(db, { messageId: message.id, body: 'Bonjour, nous regardons.', actor: 'claire@studio.test' })
    const run = await startRun(deps, context(plan([
      { call: 'draft_client_reply', input: { messageId: message.id, body: 'Madame, la livraison est prévue vendredi.' } },
      { answer: 'Drafted.' },
    ])))
    expect(run.status).toBe('awaiting_approval')
    expect((await db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, message.id))).map(d => d.id)).toEqual([
      earlier.id,
    ])
    const [approval] = await db.select().from(agentApprovals).where(eq(agentApprovals.runId, run.id))
    expect(approval).toMatchObject({ tool: 'draft_client_reply', status: 'pending', askedOf: OPERATOR.email })

    const done = await decideApproval(deps, approval!.id, 'approve', OPERATOR)
    expect(done.status).toBe('succeeded')
    const [step] = await toolSteps(run.id)
    expect(step).toMatchObject({ toolClass: 'EXTERNAL_WRITE', status: 'ok', write: { entity: 'atlas_reply_draft', undoable: true, snapshot: { supersededId: earlier.id } } })
    const drafts = await db
      .select()
      .from(atlasReplyDrafts)
      .where(eq(atlasReplyDrafts.messageId, message.id))
      .orderBy(asc(atlasReplyDrafts.id))
    expect(drafts.map(d => [d.status, d.sentAt])).toEqual([['discarded', null], ['draft', null]])
    expect(drafts[1]!.body).toBe(`Madame, la livraison est prévue vendredi.\n\n${SIGNATURE}`)

    await undoWrite(deps, run.id, step!.id, OPERATOR)
    const after = await db
      .select()
      .from(atlasReplyDrafts)
      .where(eq(atlasReplyDrafts.messageId, message.id))
      .orderBy(asc(atlasReplyDrafts.id))
    expect(after.map(d => d.status)).toEqual(['draft', 'discarded'])

    const missing = await startRun(deps, context(plan([{ call: 'draft_client_reply', input: { messageId: 999_999_999, body: 'Hello.' } }, { answer: 'No.' }])))
    expect(missing.status).toBe('succeeded')
    expect((await toolSteps(missing.id))[0]).toMatchObject({ status: 'denied', error: 'guard: no Atlas message #999999999' })
  })

  it('attaches a lesson to a spawn (shown on the spawn\'s produced lessons); the undo detaches it', async () => {
    const { db } = database()
    const { message } = await recordFromMessage(db, 'question')
    const [spawn] = await db.insert(atlasSpawns).values({ messageId: message.id, iteration: 1, status: 'failed', queuedBy: 'test' }).returning({ id: atlasSpawns.id })
    const [lesson] = await db.insert(learnLessons).values({ title: 'Pin the Node version', description: 'The build broke on Node 24.', tags: ['build'] }).returning({ id: learnLessons.id })
    const run = await startRun(deps, context(plan([
      { call: 'attach_lesson_to_spawn', input: { lessonId: lesson!.id, spawnId: spawn!.id } },
      { call: 'attach_lesson_to_spawn', input: { lessonId: lesson!.id, spawnId: spawn!.id } },
      { answer: 'Attached.' },
    ])))
    const [attached, twice] = await toolSteps(run.id)
    expect(attached).toMatchObject({ status: 'ok', write: { entity: 'learn_lesson', id: String(lesson!.id) } })
    expect(twice).toMatchObject({ status: 'error', error: expect.stringMatching(/^already_attached/) })
    const produced = await databaseLoopRecords(db).produced(spawn!.id)
    expect(produced.map(p => p.lessonId)).toEqual([lesson!.id])

    await undoWrite(deps, run.id, attached!.id, OPERATOR)
    const [back] = await db.select().from(learnLessons).where(eq(learnLessons.id, lesson!.id))
    expect(back).toMatchObject({ sourceSpawnId: null, tags: ['build'] })
    expect(await databaseLoopRecords(db).produced(spawn!.id)).toEqual([])
  })

  it('a viewer\'s agent cannot use them, and no custom agent\'s allowlist holds them', async () => {
    const { db } = database()
    const site = await worksite(db, 1)
    const run = await startRun(deps, context(plan([{ call: 'update_work_item', input: { entity: 'task', id: site.tasks[0]!.id, status: 'in_progress' } }, { answer: 'No.' }]), VIEWER))
    expect((await toolSteps(run.id))[0]).toMatchObject({ status: 'denied', error: expect.stringMatching(/^role_forbids_write/) })
    const [task] = await db.select().from(workTasks).where(eq(workTasks.id, site.tasks[0]!.id))
    expect(task!.status).toBe('todo')
    const access = effectiveAccess({ allowlist: { tools: [...WRITE_TOOL_NAMES, 'recall_memory'], tenants: [], documents: [], skills: [] }, canDelegate: false }, 'founder', deps.registry)
    expect(access.tools).toEqual(['recall_memory'])
  })
})
