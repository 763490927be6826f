// The worksites core on both databases (issue 16): every allowed transition of each entity and
// a refused one, a project with open chantiers that cannot be deleted, a thread that drafts
// one chantier however many messages it has, tasks kept in their job's project, owners that
// must exist, the board and its positions, the drafts inbox (promote, reject — counted by the
// classifier's calibration), the registries' actions, timelines and cursor paging.
import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { hubAudit } from '#db/schema/hub'
import { workChantiers, workQuestions, workRuns } from '#db/schema/work'
import { workTasks, workTransitions } from '#db/schema/worksites'
import { seedAgents } from '#layers/agents/core/seed'
import { computeCalibration, currentMonth } from '#layers/atlas/core/calibration'
import { timelineSources } from '#layers/hub/core/timeline-sources'
import { projectBoard } from '../../core/board'
import { promoteDraft, rejectDraft, listDrafts } from '../../core/drafts'
import { WorksitesError } from '../../core/errors'
import { createJob, createTask, getItem, listItems, patchTask } from '../../core/items'
import { createProject, deleteProject, getProject } from '../../core/projects'
import { materialiseRecord } from '../../core/registries'
import { actOnRecord, registryDetail } from '../../core/registry-actions'
import { entityTimeline } from '../../core/timeline'
import { assign, transition } from '../../core/transitions'
import { TRANSITIONS, type Entity } from '../../core/vocabulary'
import { ACTOR, recordFromMessage, worksite } from '../fixtures/world'

/** The error a call refused with (fails the test when it did not refuse). */
async function refusal(promise: Promise<unknown>): Promise<WorksitesError> {
  try {
    await promise
  }
  catch (error) {
    if (error instanceof WorksitesError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

/** The shortest way from `start` to `target` through the transition table. */
function pathTo(entity: Entity, start: string, target: string): string[] {
  const table = TRANSITIONS[entity] as Record<string, readonly string[]>
  const queue: string[][] = [[start]]
  const seen = new Set([start])
  while (queue.length) {
    const path = queue.shift()!
    const last = path.at(-1)!
    if (last === target) return path.slice(1)
    for (const next of table[last] ?? []) {
      if (!seen.has(next)) {
        seen.add(next)
        queue.push([...path, next])
      }
    }
  }
  throw new Error(`${target} cannot be reached from ${start}`)
}

describeOnBothDatabases('Worksites', (database) => {
  beforeAll(async () => {
    await seedAgents(database().db)
  })

  it('makes every allowed transition of each entity, each recorded with who made it', async () => {
    const { db } = database()
    const site = await worksite(database().db, 0)
    const fresh: Record<Entity, () => Promise<{ id: string, start: string }>> = {
      project: async () => ({ id: (await createProject(db, { name: `P ${randomUUID()}` }, ACTOR)).id, start: 'active' }),
      chantier: async () => ({ id: (await recordFromMessage(db, 'chantier', { subject: `C ${randomUUID()}` })).record.id, start: 'draft' }),
      job: async () => ({ id: (await createJob(db, { chantierId: site.chantier.id, title: 'J', description: '' }, ACTOR)).id, start: 'todo' }),
      task: async () => ({ id: (await createTask(db, { jobId: site.job.id, title: 'T', description: '' }, ACTOR)).id, start: 'todo' }),
    }
    let made = 0
    for (const entity of ['project', 'chantier', 'job', 'task'] as const) {
      for (const [from, targets] of Object.entries(TRANSITIONS[entity] as Record<string, readonly string[]>)) {
        for (const to of targets) {
          const { id, start } = await fresh[entity]()
          for (const step of pathTo(entity, start, from)) await transition(db, entity, id, { to: step, reason: 'because', actor: ACTOR })
          expect(await transition(db, entity, id, { to, reason: 'because', actor: ACTOR })).toEqual({ entity, id, from, to })
          const [last] = await db.select().from(workTransitions).where(eq(workTransitions.entityId, id)).orderBy(sql`${workTransitions.id} desc`).limit(1)
          expect(last).toMatchObject({ entity, kind: 'transition', fromStatus: from, toStatus: to, actor: ACTOR })
          made++
        }
      }
    }
    expect(made).toBe(
      Object.values(TRANSITIONS).reduce((n, table) => n + Object.values(table as Record<string, readonly string[]>).flat().length, 0),
    )
  })

  it('refuses a transition the table does not allow, naming the allowed ones, and an unknown status', async () => {
    const { db } = database()
    const site = await worksite(db, 1)
    const task = site.tasks[0]!
    const cases: Array<[Entity, string, string, string[]]> = [
      ['project', site.project.id, 'active', ['paused', 'archived']],
      ['chantier', site.chantier.id, 'planned', ['active', 'cancelled']],
      ['job', site.job.id, 'todo', ['in_progress', 'blocked', 'cancelled']],
      ['task', task.id, 'todo', ['in_progress', 'blocked', 'cancelled']],
    ]
    const illegal: Record<Entity, string> = { project: 'active', chantier: 'done', job: 'done', task: 'review' }
    for (const [entity, id, from, allowed] of cases) {
      const error = await refusal(transition(db, entity, id, { to: illegal[entity], actor: ACTOR }))
      expect(error.status).toBe(409)
      expect(error.code).toBe('illegal_transition')
      expect(error.data).toEqual({ entity, from, to: illegal[entity], allowed })
      const unknown = await refusal(transition(db, entity, id, { to: 'finished', actor: ACTOR }))
      expect([unknown.status, unknown.code]).toEqual([400, 'bad_input'])
    }
    expect((await getItem(db, 'task', task.id))!.status).toBe('todo')
    // Rejecting a draft needs its reason.
    const { record } = await recordFromMessage(db, 'chantier')
    expect((await refusal(transition(db, 'chantier', record.id, { to: 'rejected', actor: ACTOR }))).code).toBe('reason_required')
  })

  it('refuses to delete a project with open chantiers, with the reason; deletes it once they are closed', async () => {
    const { db } = database()
    const site = await worksite(db, 2)
    const error = await refusal(deleteProject(db, site.project.id, ACTOR))
    expect([error.status, error.code, error.data.open]).toEqual([409, 'has_open_children', 1])
    expect(error.message).toMatch(/open chantier/)
    expect(await getProject(db, site.project.id)).not.toBeNull()
    expect((await db.select().from(workTasks).where(eq(workTasks.projectId, site.project.id))).length).toBe(2)
    await transition(db, 'chantier', site.chantier.id, { to: 'cancelled', reason: 'client changed their mind', actor: ACTOR })
    expect(await deleteProject(db, site.project.id, ACTOR)).toEqual({ ok: true, id: site.project.id })
    expect(await getProject(db, site.project.id)).toBeNull()
    expect((await db.select().from(workTasks).where(eq(workTasks.projectId, site.project.id))).length).toBe(0)
    expect((await refusal(deleteProject(db, site.project.id, ACTOR))).code).toBe('not_found')
  })

  it('keeps one chantier draft for a thread, however many of its messages are classified as chantier', async () => {
    const { db } = database()
    const first = await recordFromMessage(db, 'chantier', { subject: 'Refonte du blog' })
    const reply = await recordFromMessage(db, 'chantier', { subject: 'Re: Refonte du blog', inReplyTo: first.message.messageId, references: [first.message.messageId!] })
    expect(reply.record).toEqual({ kind: 'chantier', id: first.record.id, action: 'updated' })
    const rows = await db.select().from(workChantiers).where(eq(workChantiers.id, first.record.id))
    expect(rows[0]).toMatchObject({ status: 'draft', messageCount: 2, lastMessageId: reply.message.id })
    expect((await db.select({ n: sql<number>`count(*)::int` }).from(workChantiers).where(sql`${workChantiers.sourceMessageId} in (${first.message.id}, ${reply.message.id})`))[0]!.n).toBe(1)
    // Promoted, it stays one record when the first message is classified again.
    const site = await worksite(db, 0)
    await promoteDraft(db, first.record.id, { projectId: site.project.id, jobs: [] }, ACTOR)
    const again = await materialiseRecord(db, { kind: 'chantier', message: { id: first.message.id, subject: first.message.subject, textBody: first.message.textBody, fromAddress: null, inReplyTo: null, threadReferences: [] }, tenantId: null, actor: 'atlas' })
    expect(again.id).toBe(first.record.id)
    expect((await getItem(db, 'chantier', first.record.id))!.status).toBe('planned')
  })

  it('keeps a task in its job\'s project and refuses an owner that does not exist, writing nothing', async () => {
    const { db } = database()
    const a = await worksite(db, 1)
    const b = await worksite(db, 0)
    const count = async () => (await db.select({ n: sql<number>`count(*)::int` }).from(workTasks))[0]!.n
    const before = await count()
    const cross = await refusal(createTask(db, { jobId: b.job.id, projectId: a.project.id, title: 'Égarée', description: '' }, ACTOR))
    expect([cross.status, cross.code]).toEqual([400, 'cross_project'])
    const moved = await refusal(patchTask(db, a.tasks[0]!.id, { jobId: b.job.id }, ACTOR))
    expect(moved.code).toBe('cross_project')
    // The database refuses it too (composite key), whoever writes.
    await expect(db.insert(workTasks).values({ projectId: a.project.id, chantierId: b.chantier.id, jobId: b.job.id, title: 'x', createdBy: 'sql' })).rejects.toThrow()
    const ghost = await refusal(createTask(db, { jobId: a.job.id, title: 'Sans maître', description: '', owner: { kind: 'agent', codename: 'nobody-here' } }, ACTOR))
    expect([ghost.status, ghost.code]).toEqual([400, 'unknown_owner'])
    const ghostUser = await refusal(assign(db, 'task', a.tasks[0]!.id, { kind: 'user', id: randomUUID() }, ACTOR))
    expect(ghostUser.code).toBe('unknown_owner')
    expect(await count()).toBe(before)
    expect((await getItem(db, 'task', a.tasks[0]!.id))!.owner).toBeNull()
    await assign(db, 'task', a.tasks[0]!.id, { kind: 'agent', codename: 'orchestrator' }, ACTOR)
    expect((await getItem(db, 'task', a.tasks[0]!.id))!.owner).toMatchObject({ kind: 'agent', codename: 'orchestrator' })
    const timeline = await entityTimeline(db, timelineSources, 'task', a.tasks[0]!.id)
    expect(timeline.map(item => item.kind)).toEqual(expect.arrayContaining(['assignment', 'transition']))
  })

  it('serves the board by column and position, and moves a card to a place in another column', async () => {
    const { db } = database()
    const site = await worksite(db, 4)
    const [t1, t2, t3, t4] = site.tasks
    await transition(db, 'task', t1!.id, { to: 'in_progress', actor: ACTOR })
    await transition(db, 'task', t2!.id, { to: 'in_progress', actor: ACTOR, position: 0 })
    let board = await projectBoard(db, site.project.id)
    expect(board.columns.map(c => c.status)).toEqual(['todo', 'in_progress', 'review', 'blocked', 'done', 'cancelled'])
    expect(board.columns[1]!.tasks.map(t => t.id)).toEqual([t2!.id, t1!.id])
    expect(board.columns[0]!.tasks.map(t => [t.id, t.position])).toEqual([[t3!.id, 0], [t4!.id, 1]])
    await patchTask(db, t4!.id, { position: 0 }, ACTOR)
    board = await projectBoard(db, site.project.id)
    expect(board.columns[0]!.tasks.map(t => t.id)).toEqual([t4!.id, t3!.id])
    expect(board.columns[0]!.tasks[0]).toMatchObject({ jobTitle: 'Maquette', chantierTitle: 'Refonte', owner: null })
    expect(board.transitions.todo).toEqual(['in_progress', 'blocked', 'cancelled'])
  })

  it('promotes a draft into a planned chantier with its jobs and tasks, and rejects another with a reason the calibration counts', async () => {
    const { db } = database()
    const site = await worksite(db, 0)
    const month = currentMonth(new Date())
    const before = (await computeCalibration(db, month)).intents.find(i => i.intent === 'chantier')!
    const keep = await recordFromMessage(db, 'chantier', { subject: 'Nouveau site' })
    const drop = await recordFromMessage(db, 'chantier', { subject: 'Publicité déguisée' })
    expect((await listDrafts(db, { limit: 200 })).items.map(d => d.id)).toEqual(expect.arrayContaining([keep.record.id, drop.record.id]))
    const promoted = await promoteDraft(db, keep.record.id, { projectId: site.project.id, jobs: [{ title: 'Maquettes', tasks: ['Accueil', 'Blog'] }, { title: 'Intégration' }] }, ACTOR)
    expect(promoted).toMatchObject({ status: 'planned', projectId: site.project.id, jobCount: 2 })
    const tasks = await listItems(db, 'task', { chantierId: keep.record.id, sort: 'position', limit: 50 })
    expect(tasks.items.map(t => t.title)).toEqual(['Accueil', 'Blog'])
    expect((await refusal(promoteDraft(db, keep.record.id, { projectId: site.project.id, jobs: [] }, ACTOR))).code).toBe('not_draft')
    const rejected = await rejectDraft(db, drop.record.id, 'Not a chantier: an advertisement', ACTOR)
    expect(rejected).toMatchObject({ status: 'rejected', statusReason: 'Not a chantier: an advertisement' })
    const after = (await computeCalibration(db, month)).intents.find(i => i.intent === 'chantier')!
    expect(after.jobs - before.jobs).toBe(2)
    expect(after.rejectedJobs - before.rejectedJobs).toBe(1)
    const audit = await db.select().from(hubAudit).where(eq(hubAudit.target, `work_chantier:${drop.record.id}`))
    expect(audit.map(a => a.action)).toContain('worksites.chantier_transitioned')
    const timeline = await entityTimeline(db, timelineSources, 'chantier', keep.record.id)
    expect(timeline.map(i => i.kind)).toEqual(expect.arrayContaining(['message', 'transition']))
  })

  it('acts on the registries: answer, refuse a second answer, cancel with a reason the calibration counts', async () => {
    const { db } = database()
    const month = currentMonth(new Date())
    const question = await recordFromMessage(db, 'question', { subject: 'Combien coûte un audit ?' })
    const run = await recordFromMessage(db, 'run', { subject: 'Vider le cache' })
    const answered = await actOnRecord(db, 'questions', question.record.id, { to: 'answered', resolution: 'Environ deux jours.', actor: ACTOR })
    expect(answered).toMatchObject({ status: 'answered', resolution: 'Environ deux jours.', resolvedBy: ACTOR })
    const again = await refusal(actOnRecord(db, 'questions', question.record.id, { to: 'answered', resolution: 'x', actor: ACTOR }))
    expect(again.data).toMatchObject({ from: 'answered', to: 'answered', allowed: [] })
    expect((await db.select().from(workQuestions).where(eq(workQuestions.id, question.record.id)))[0]!.resolution).toBe('Environ deux jours.')
    const before = (await computeCalibration(db, month)).intents.find(i => i.intent === 'run')!
    await actOnRecord(db, 'runs', run.record.id, { to: 'cancelled', reason: 'Pas une demande', actor: ACTOR })
    expect((await db.select().from(workRuns).where(eq(workRuns.id, run.record.id)))[0]).toMatchObject({ status: 'cancelled', statusReason: 'Pas une demande' })
    expect((await computeCalibration(db, month)).intents.find(i => i.intent === 'run')!.cancelledJobs - before.cancelledJobs).toBe(1)
    const detail = await registryDetail(db, timelineSources, 'runs', run.record.id)
    expect(detail.allowedActions).toEqual([])
    expect(detail.timeline.map(i => i.kind)).toEqual(expect.arrayContaining(['message', 'transition']))
  })

  it('pages a list with its cursor, in order, without repeating a row', async () => {
    const { db } = database()
    const site = await worksite(db, 7)
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await listItems(db, 'task', { projectId: site.project.id, sort: 'title', limit: 3, cursor })
      expect(page.total).toBe(7)
      seen.push(...page.items.map(t => t.title))
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual([...seen].sort())
    expect(new Set(seen).size).toBe(7)
    expect((await refusal(listItems(db, 'task', { sort: 'title', limit: 3, cursor: 'not-a-cursor' }))).code).toBe('bad_input')
    expect((await refusal(listItems(db, 'task', { status: 'finished', sort: 'title', limit: 3 }))).code).toBe('bad_input')
  })
})
