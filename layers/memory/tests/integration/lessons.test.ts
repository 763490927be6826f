// Recording a lesson (recordLesson, the function the spawn worker and the hub's message page
// call), on both databases: a scar and a victory written, re-indexed at once, their importance
// scored in the background or left empty when no model answers, then filled by the later run;
// bad input refused with a machine-readable code and nothing written.
import { eq, sql } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnLessons } from '#db/schema/learn'
import { seedAgents } from '#layers/agents/core/seed'
import { createAiFacade } from '#layers/ai/core/facade'
import { importanceFrom, importanceScorer, scoreUnscoredLessons } from '../../core/lesson-importance'
import { LessonInputError, recordLesson, type RecordLessonInput } from '../../core/lessons'
import { recall } from '../../core/recall/engine'
import { offlineEmbedder, OFFLINE_ENV, rateLimited } from '../fixtures/embedders'

describeOnBothDatabases('recording lessons', (database) => {
  beforeAll(async () => {
    await seedAgents(database().db)
  })
  const scar: RecordLessonInput = {
    kind: 'scar', title: 'The sitemap cron filled the disk', description: 'The sitemap cron wrote a 40 GB log: no rotation on the preprod host.',
    agent: 'infrastructure', tags: ['cron', 'Disk'], recordedBy: 'founder@studio.example',
  }

  it('writes a scar, indexes it at once so recall finds it, and scores its importance in the background', async () => {
    const { db } = database()
    const embedder = offlineEmbedder(db)
    const work: Promise<unknown>[] = []
    const recorded = await recordLesson(db, scar, { embedder, scoreImportance: async () => 7, background: w => void work.push(w) })
    expect(recorded.lesson).toMatchObject({ kind: 'failure', title: scar.title, agent: 'infrastructure', tags: ['cron', 'disk'], recordedBy: 'founder@studio.example', sourceSpawnId: null })
    expect(recorded.index).toMatchObject({ status: 'indexed', sourceType: 'scar' })
    await Promise.all(work)
    expect((await db.select().from(learnLessons).where(eq(learnLessons.id, recorded.lesson.id)))[0]!.importance).toBe(7)
    const hits = await recall({ db, embedder }, { query: 'sitemap cron disk log rotation', scope: ['scar'], readOnly: true })
    expect(hits.hits.map(hit => hit.sourceId)).toContain(String(recorded.lesson.id))
  })

  it('records a victory as a success, indexed as a victory', async () => {
    const { db } = database()
    const recorded = await recordLesson(db, { kind: 'victory', title: 'Log rotation saved the preprod', description: 'logrotate daily with compression kept the disk at 20 %.', recordedBy: 'atlas-spawn-worker', sourceSpawnId: '00000000-0000-4000-8000-000000000001' }, { embedder: offlineEmbedder(db) })
    expect(recorded.lesson).toMatchObject({ kind: 'success', agent: null, importance: null })
    expect(recorded.index).toMatchObject({ status: 'indexed', sourceType: 'victory' })
  })

  it('leaves the importance empty when no model answers, and the index deferred when embedding fails; the later run fills the figure', async () => {
    const { db } = database()
    const offline = importanceScorer(createAiFacade({ env: OFFLINE_ENV, db, log: () => {} }))
    const failing = async () => {
      throw new Error('every provider is down')
    }
    const logs: string[] = []
    const work: Promise<unknown>[] = []
    const a = await recordLesson(db, { ...scar, title: 'Offline scored' }, { scoreImportance: offline, background: w => void work.push(w), embedder: rateLimited(offlineEmbedder(db)), log: l => void logs.push(l) })
    const b = await recordLesson(db, { ...scar, title: 'Down scored' }, { scoreImportance: failing, background: w => void work.push(w), log: l => void logs.push(l) })
    await Promise.all(work)
    expect(a.index).toMatchObject({ status: 'deferred' })
    expect(b.index).toBeNull()
    const importance = async (id: number) =>
      (await db.select({ importance: learnLessons.importance }).from(learnLessons).where(eq(learnLessons.id, id)))[0]!.importance
    expect(await importance(a.lesson.id)).toBeNull()
    expect(await importance(b.lesson.id)).toBeNull()
    expect(logs.join('\n')).toContain(`lesson ${b.lesson.id}: importance not scored (every provider is down)`)
    // The later run (the vector-sync automate's): a model answers now.
    const run = await scoreUnscoredLessons(db, async lesson => lesson.title === 'Offline scored' ? 4 : 9, { limit: 100 })
    expect(run.scored).toBeGreaterThanOrEqual(2)
    expect(await importance(a.lesson.id)).toBe(4)
    expect(await importance(b.lesson.id)).toBe(9)
    // A figure a person set in between is never overwritten.
    const c = await recordLesson(db, { ...scar, title: 'Set by a person', importance: 2 }, { scoreImportance: async () => 10 })
    expect(await importance(c.lesson.id)).toBe(2)
  })

  it.each([
    [{ kind: 'lesson' }, /kind must be scar or victory/],
    [{ title: '   ' }, /title is empty/],
    [{ title: 'x'.repeat(201) }, /title is longer than 200/],
    [{ description: '' }, /description is empty/],
    [{ description: `a${String.fromCharCode(0)}b` }, /NUL character/],
    [{ title: 'lone \uD800 surrogate' }, /lone surrogate/],
    [{ agent: 'nobody-here' }, /no agent with codename "nobody-here"/],
    [{ tags: ['ok', 'bad tag!'] }, /tag "bad tag!"/],
    [{ importance: 11 }, /importance must be a whole number from 0 to 10/],
    [{ tenantId: 'acme' }, /tenantId must be a tenant id/],
    [{ sourceSpawnId: 'x' }, /sourceSpawnId must be a spawn id/],
    [{ recordedBy: '' }, /recordedBy is empty/],
  ])('refuses %o with a clear error and writes nothing', async (patch, message) => {
    const { db } = database()
    const [{ n: before }] = await db.select({ n: sql<number>`count(*)::int` }).from(learnLessons) as [{ n: number }]
    const error = await recordLesson(db, { ...scar, ...patch } as RecordLessonInput).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LessonInputError)
    expect((error as LessonInputError).code).toBe('bad_lesson_input')
    expect((error as Error).message).toMatch(message)
    const [{ n: after }] = await db.select({ n: sql<number>`count(*)::int` }).from(learnLessons) as [{ n: number }]
    expect(after).toBe(before)
  })

  it('reads a model\'s importance figure only when it is one', () => {
    expect(importanceFrom({ importance: 6.4 })).toBe(6)
    expect(importanceFrom({ importance: '8' })).toBe(8)
    for (const bad of [null, 'text', { importance: 11 }, { importance: -1 }, { importance: 'high' }, { answer: null, offline: true }]) expect(importanceFrom(bad)).toBeNull()
  })
})
