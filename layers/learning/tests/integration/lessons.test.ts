// The lessons registry from the hub, on both databases: a lesson recorded with its learnable
// flag, project and hub audit; its importance scored in the background, and a model failure
// leaving it null without failing the record; the list's filters (kind, agent, tenant,
// importance, archived) and each lesson's recalls and the spawns it was injected into.
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasMessages } from '#db/schema/atlas'
import { atlasSpawnLessons, atlasSpawns } from '#db/schema/atlas-spawn'
import { hubAudit } from '#db/schema/hub'
import { learnLessons } from '#db/schema/learn'
import { listLessons } from '../../core/lessons'
import { LessonInputError, recordHubLesson } from '../../core/record'
import { clearLessons, lesson, seedWorld } from '../fixtures/world'

describeOnBothDatabases('learning lessons registry', (database) => {
  let tenantId = ''
  beforeAll(async () => {
    tenantId = (await seedWorld(database().db)).tenantId
  })
  beforeEach(async () => clearLessons(database().db))
  const input = { kind: 'scar' as const, title: 'Cache purge forgotten', description: 'The CDN kept the old bundle for an hour after the deploy.', tags: ['cdn', 'deploy'], actor: 'operator@studio.test' }

  it('records a lesson with its flag, project and audit; the importance arrives in the background', async () => {
    const { db } = database()
    const work: Promise<unknown>[] = []
    const projectId = randomUUID()
    const recorded = await recordHubLesson({ db, scoreImportance: async () => 8, background: w => void work.push(w) }, { ...input, agent: 'backend', tenantId, projectId, learnable: true })
    expect(recorded).toMatchObject({ importancePending: true, lesson: { kind: 'failure', importance: null, learnable: true, projectId, tenantId, agent: 'backend', tags: ['cdn', 'deploy'], recordedBy: 'operator@studio.test' } })
    await Promise.all(work)
    expect((await db.select().from(learnLessons).where(eq(learnLessons.id, recorded.lesson.id)))[0]!.importance).toBe(8)
    const audit = await db.select().from(hubAudit).where(eq(hubAudit.target, `learn_lesson:${recorded.lesson.id}`))
    expect(audit[0]).toMatchObject({ actor: 'operator@studio.test', action: 'learning.lesson_recorded' })
  })

  it('a model failure leaves the importance null and never fails the record; bad input writes nothing', async () => {
    const { db } = database()
    const work: Promise<unknown>[] = []
    const recorded = await recordHubLesson({ db, scoreImportance: async () => Promise.reject(new Error('All AI providers are unavailable')), background: w => void work.push(w), log: () => {} }, input)
    await Promise.all(work)
    expect((await db.select().from(learnLessons).where(eq(learnLessons.id, recorded.lesson.id)))[0]).toMatchObject({
      importance: null,
      learnable: false,
    })
    await expect(recordHubLesson({ db }, { ...input, agent: 'nobody-here' })).rejects.toBeInstanceOf(LessonInputError)
    await expect(recordHubLesson({ db }, { ...input, tags: ['no spaces allowed'] })).rejects.toThrow(/tag "no spaces allowed"/)
    expect(await db.select().from(learnLessons)).toHaveLength(1)
  })

  it('filters by kind, agent, tenant, importance and archived, with the recalls and the spawns each lesson was injected into', async () => {
    const { db } = database()
    const a = await lesson(db, { agent: 'backend', tenantId, importance: 9, recallCount: 3, lastRecalledAt: new Date() })
    const b = await lesson(db, { kind: 'success', importance: 2 })
    const c = await lesson(db, { archivedAt: new Date(), importance: 5 })
    const [message] = await db.insert(atlasMessages).values({ dedupeKey: `<${randomUUID()}@t>`, messageId: `<${randomUUID()}@t>`, rawSha256: randomUUID().replace(/-/g, ''), rawSize: 1, mailbox: 'INBOX', fromAddress: 'a@b.example', toAddresses: [], subject: 's', textBody: 't' }).returning({ id: atlasMessages.id })
    const [spawn] = await db.insert(atlasSpawns).values({ messageId: message!.id, status: 'succeeded', queuedBy: 'test' }).returning({ id: atlasSpawns.id })
    await db.insert(atlasSpawnLessons).values({ spawnId: spawn!.id, lessonId: a.id, rank: 1, origin: 'own' })
    const ids = async (filters: Parameters<typeof listLessons>[1]) => (await listLessons(db, filters)).map(l => l.id).sort((x, y) => x - y)
    expect(await ids({})).toEqual([a.id, b.id])
    expect(await ids({ kind: 'victory' })).toEqual([b.id])
    expect(await ids({ kind: 'scar', archived: 'include' })).toEqual([a.id, c.id])
    expect(await ids({ archived: 'only' })).toEqual([c.id])
    expect(await ids({ agent: 'backend' })).toEqual([a.id])
    expect(await ids({ tenantId })).toEqual([a.id])
    expect(await ids({ minImportance: 5, archived: 'include' })).toEqual([a.id, c.id])
    const [view] = await listLessons(db, { agent: 'backend' })
    expect(view).toMatchObject({ recallCount: 3, injectionCount: 1, injections: [{ spawnId: spawn!.id, messageId: message!.id, rank: 1, origin: 'own', status: 'succeeded' }] })
  })
})
