// One message's story on one timeline (issue 36, Deliver 4), on both databases, through the real
// parts: a stranger's chantier request with an attachment goes through the real ingestion (the
// sender's verdict), ClamAV (clamscan), the scripted model, a person's approval, the spawn
// engine with the stand-in agent (deploy, QA on a real site, the recap to the team, the victory
// the loop records), then a person's scar from the message: every step in order, each with who
// or what did it, and its links. And "Record the scar" on a failed spawn: the scar is recorded
// linked to that spawn (source spawn, tags, audit) and shows after the failure on the timeline;
// a spawn of another message, or a message that does not exist, is refused.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnLessons } from '#db/schema/learn'
import { seedAgents } from '#layers/agents/core/seed'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { databaseLoopRecords } from '#layers/spawn/core/spawn-loop-records'
import { startEngine, type Engine } from '#layers/spawn/tests/fixtures/engine'
import { startQaSite, type QaSite } from '#layers/spawn/tests/fixtures/qa-site'
import { classifiedMessage, spawnsOf } from '#layers/spawn/tests/fixtures/seed'
import { decideApproval } from '../../core/approval'
import { createScanner } from '../../core/scan/clamav'
import { MessageLessonError, recordMessageLesson } from '../../core/message-lesson'
import { inboxVersion } from '../../core/queries'
import { messageTimeline } from '../../core/timeline'
import { latestFailedSpawn, MessageTimeline, type MessageTimelineView } from '../../core/timeline-schema'
import { clamscanBinary, writeEicarDatabase } from '../fakes/clamav'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { deliver, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'

vi.setConfig({ testTimeout: 240_000 })

const OPERATOR = 'operator@studio.example'
const FOUNDER = 'founder@studio.example'

describeOnBothDatabases('the message timeline', (database) => {
  let model: ScriptedModel
  let engine: Engine
  let site: QaSite
  let clamdb: { dir: string, remove: () => void }

  beforeAll(async () => {
    const { db } = database()
    clamscanBinary()
    clamdb = writeEicarDatabase()
    await seedAgents(db)
    model = await startScriptedModel()
    site = await startQaSite()
    engine = await startEngine(db, database().url, { SPAWN_SANDBOX: 'bwrap' })
    engine.config = { ...engine.config, deployCommand: 'true', qaBaseUrl: site.url }
  })
  afterAll(async () => {
    await engine?.close()
    await site?.close()
    await model?.close()
    clamdb?.remove()
  })
  beforeEach(() => model.reset())

  const drain = (variant: string, extra: Record<string, string> = {}) => engine.drain({
    env: { ...engine.env, STAND_IN_VARIANT: variant, ...extra },
    config: engine.config,
    embedder: offlineEmbedder(database().db),
    scoreImportance: async () => null,
  })
  const timelineOf = async (messageId: number): Promise<MessageTimelineView> => {
    const { db } = database()
    const timeline = await messageTimeline({ db, producedLessons: databaseLoopRecords(db).produced }, messageId)
    // What the route answers: the timeline as its schema reads it.
    return MessageTimeline.parse(timeline)
  }

  it('tells a stranger\'s chantier from its arrival to its lessons, in order, each step with its actor and links', async () => {
    const { db } = database()
    model.answer(json('chantier', 0.92, 'a new page for the site'))
    const ai = model.facade(db)
    const scanner = createScanner(testConfig({ CLAMAV_DATABASE: clamdb.dir }).scanner, 25 * 1024 * 1024)
    const raw = await compose({ subject: 'Une page pour nos horaires', text: 'Bonjour, pouvez-vous ajouter une page avec nos horaires ?', attachments: [{ filename: 'horaires.txt', content: 'lundi-vendredi 9h-18h' }] })
    const delivery = await deliver(db, ai, [raw], { config: testConfig(), scanner })
    await ai.flush()
    const messageId = delivery.stored[0]!.messageRowId

    // Before anyone decides: it waits, and the story ends there.
    const waiting = await timelineOf(messageId)
    expect(waiting.steps.map(s => s.kind)).toEqual(['received', 'authenticated', 'scanned', 'classified', 'admission'])
    expect(waiting.steps.at(-1)).toMatchObject({ title: 'Waiting for a person\'s approval', outcome: 'waiting' })

    expect(await decideApproval(db, messageId, 'approve', OPERATOR)).toMatchObject({ ok: true })
    await engine.cycle()
    await drain('chantier', { STAND_IN_ROUTES: '/' })
    const [spawn] = await spawnsOf(db, messageId)
    expect(spawn).toMatchObject({ status: 'succeeded', outcome: 'actioned' })
    const scar = await recordMessageLesson({ db, embedder: offlineEmbedder(db) }, messageId, { kind: 'scar', title: 'The opening hours page had no French accent check', description: 'A person noticed the accents were missing on the hours page.', actor: FOUNDER })

    const { steps, status } = await timelineOf(messageId)
    expect(status).toBe('actioned')
    // A reply draft comes only when the agent writes one: the story's other steps, in order.
    const story = steps.filter(s => s.kind !== 'reply_draft')
    expect(story.map(s => [s.kind, s.actorKind])).toEqual([
      ['received', 'automate'],
      ['authenticated', 'automate'],
      ['scanned', 'scanner'],
      ['classified', 'model'],
      ['admission', 'automate'],
      ['admission', 'person'],
      ['work_record', 'person'],
      ['spawn_queued', 'automate'],
      ['spawned', 'automate'],
      ['iteration', 'agent'],
      ['deployed', 'automate'],
      ['qa', 'automate'],
      ['actioned', 'automate'],
      ['recap', 'automate'],
      ['lesson', 'automate'],
      ['lesson', 'person'],
    ])
    const step = (index: number) => story[index]!
    expect(step(0)).toMatchObject({ actor: 'atlas-collect', title: 'Received' })
    expect(step(1)).toMatchObject({ title: 'Sender not authenticated', outcome: 'warning' })
    expect(step(2)).toMatchObject({ title: 'Attachments scanned: 1 clean', actor: 'clamscan' })
    expect(step(3)).toMatchObject({ title: 'Classified: chantier (confidence 0.92)', actor: expect.stringContaining('mistral') })
    expect(step(4)).toMatchObject({ title: 'Waiting for a person\'s approval', actor: 'atlas-collect', outcome: 'waiting' })
    expect(step(5)).toMatchObject({ title: `Approved by ${OPERATOR}`, actor: OPERATOR })
    expect(step(6).links).toMatchObject([{ label: 'The chantier', to: expect.stringMatching(/^\/hub\/worksites\/chantiers\/[0-9a-f-]{36}$/) }])
    // Every step of the spawn names it and links to its page.
    for (const index of [7, 8, 9, 10, 11, 12, 13]) {
      expect(step(index).spawnId, step(index).kind).toBe(spawn!.id)
      expect(step(index).links, step(index).kind).toContainEqual(expect.objectContaining({ label: 'Spawn 1', to: `/hub/atlas/spawns/${spawn!.id}` }))
    }
    expect(step(7)).toMatchObject({ actor: 'atlas-spawn' })
    expect(step(9)).toMatchObject({ actor: spawn!.agentCodename, outcome: 'done' })
    expect(step(10)).toMatchObject({ title: 'Deployed', outcome: 'done' })
    expect(step(11)).toMatchObject({ title: 'QA passed' })
    expect(step(13)).toMatchObject({ title: 'Recap sent to the team', detail: expect.stringContaining('team@studio.example') })
    const [victory] = await db.select().from(learnLessons).where(eq(learnLessons.sourceSpawnId, spawn!.id))
    expect(step(14)).toMatchObject({ title: `Victory recorded: ${victory!.title}`, actor: 'atlas-spawn-worker' })
    expect(step(14).links).toContainEqual(expect.objectContaining({ label: `Lesson: ${victory!.title}`, to: `/hub/learning?lesson=${victory!.id}` }))
    expect(step(15)).toMatchObject({ title: `Scar recorded: ${scar.lesson.title}`, actor: FOUNDER })
    expect(step(15).links).toMatchObject([{ label: `Lesson: ${scar.lesson.title}`, to: `/hub/learning?lesson=${scar.lesson.id}` }])
    // In time order, and every step once.
    const times = steps.map(s => Date.parse(s.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(new Set(steps.map(s => s.id)).size).toBe(steps.length)
    expect(latestFailedSpawn({ messageId, status, steps })).toBeNull()
  })

  it('records "the scar" of a failed spawn linked to that spawn, after the failure on the timeline; refuses another message\'s spawn', async () => {
    const { db } = database()
    const messageId = await classifiedMessage(db, { subject: 'Le formulaire de contact renvoie une erreur 500' })
    const other = await classifiedMessage(db, { subject: 'Another request' })
    await engine.cycle()
    await drain('crash')
    const [failed] = await spawnsOf(db, messageId)
    expect(failed).toMatchObject({ status: 'failed', outcome: 'spawn_failed' })

    const before = await timelineOf(messageId)
    const failure = latestFailedSpawn(before)
    expect(failure).toEqual({ spawnId: failed!.id, title: 'Spawn 1 failed', reason: failed!.reason })
    expect(before.steps.find(s => s.kind === 'iteration' && s.outcome === 'failed')).toMatchObject({ spawnId: failed!.id, actor: 'atlas-spawn-worker' })

    // What the form sends once opened from the failure: its title, the failure as what happened, the spawn.
    const input = { kind: 'scar' as const, title: failure!.title, description: `${failure!.title}: ${failure!.reason}`, spawnId: failure!.spawnId, actor: OPERATOR }
    const { lesson } = await recordMessageLesson({ db, embedder: offlineEmbedder(db) }, messageId, input)
    expect(lesson).toMatchObject({ kind: 'failure', sourceSpawnId: failed!.id, recordedBy: OPERATOR })
    expect(lesson.tags).toEqual(expect.arrayContaining([`message:${messageId}`, `spawn:${failed!.id}`]))

    const after = await timelineOf(messageId)
    const failedAt = after.steps.findIndex(s => s.kind === 'iteration' && s.outcome === 'failed')
    const scarAt = after.steps.findIndex(s => s.kind === 'lesson' && s.actor === OPERATOR)
    expect(scarAt).toBeGreaterThan(failedAt)
    expect(after.steps[scarAt]!.links).toMatchObject([
      { label: 'The spawn', to: `/hub/atlas/spawns/${failed!.id}` },
      { label: `Lesson: ${lesson.title}`, to: `/hub/learning?lesson=${lesson.id}` },
    ])
    // Told once: the hand-recorded scar is not repeated as one of the spawn's lessons.
    expect(after.steps.filter(s => s.links.some(l => l.to === `/hub/learning?lesson=${lesson.id}`))).toHaveLength(1)

    await expect(recordMessageLesson({ db, embedder: offlineEmbedder(db) }, other, input)).rejects.toMatchObject({ code: 'spawn_not_of_message' })
    await expect(recordMessageLesson({ db, embedder: offlineEmbedder(db) }, 99_999_999, input)).rejects.toBeInstanceOf(MessageLessonError)
    expect(await messageTimeline({ db, producedLessons: databaseLoopRecords(db).produced }, 99_999_999)).toBeNull()
    const refused = await db.select({ id: learnLessons.id }).from(learnLessons).where(eq(learnLessons.title, failure!.title))
    expect(refused).toHaveLength(1)

    // The page's live stream moves when a spawn's outcome records its lesson (written after its audit entry).
    const version = await inboxVersion(db)
    await db.insert(learnLessons).values({ kind: 'failure', title: 'Recorded by the loop after the audit', description: 'The lesson the loop writes last.', sourceSpawnId: failed!.id })
    expect(await inboxVersion(db)).not.toBe(version)
    expect((await timelineOf(messageId)).steps.at(-1)).toMatchObject({ kind: 'lesson', title: 'Scar recorded: Recorded by the loop after the audit', spawnId: failed!.id })
  })
})
