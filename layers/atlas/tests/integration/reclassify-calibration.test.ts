// Re-classification by an operator (audited, the pipeline runs again, the work record
// moves with the intent, a classification in flight cannot overwrite the request) and the
// monthly calibration report, through its core and through the automate as a process. The
// mails come from the founder, signed, so that each is admitted and gets its work record at
// once (a stranger's waits for approval, with none: admission-materialise.test.ts).
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { hubAudit } from '#db/schema/hub'
import { atlasCalibrationReports, atlasInbox } from '#db/schema/atlas'
import { workChantiers, workRuns } from '#db/schema/work'
import { computeCalibration, currentMonth, monthRange, previousMonth } from '../../core/calibration'
import { requestReclassification } from '../../core/reclassify'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { actionsOf, deliver, inboxOf, reprocess, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'
import { createZone } from '../fixtures/sender-auth'

const FOUNDER = 'alex@studio.example'
const zone = createZone()
const signStudio = zone.dkimKey('studio.example')

describeOnBothDatabases('Atlas re-classification and calibration', (database) => {
  let model: ScriptedModel
  const config = testConfig({ ATLAS_FOUNDER_EMAILS: FOUNDER })

  beforeAll(async () => {
    model = await startScriptedModel()
  })
  afterAll(async () => {
    await model.close()
  })
  beforeEach(() => model.reset())

  async function classified(subject: string, answer: string): Promise<number> {
    const { db } = database()
    model.answer(answer)
    const delivery = await deliver(db, model.facade(db), [await signStudio(await compose({ from: FOUNDER, subject }))], {
      config,
      resolver: zone.resolver,
    })
    return delivery.stored[0]!.messageRowId
  }

  it('re-queues a classified message, audits who asked, and moves the work record with the new intent', async () => {
    const { db } = database()
    const id = await classified('Refonte ou correctif ?', json('run', 0.72))
    const before = await inboxOf(db, id)
    const runId = before.materialisedId!

    const result = await requestReclassification(db, id, 'operator@studio.example')
    expect(result).toEqual({ ok: true, messageId: id, previousStatus: 'classified', previousIntent: 'run' })
    const queued = await inboxOf(db, id)
    expect(queued).toMatchObject({ status: 'received', classifyAttempts: 0, reclassifyRequestedBy: 'operator@studio.example', revision: before.revision + 1 })
    const [human] = await db.select().from(hubAudit).where(eq(hubAudit.target, `atlas_message:${id}`))
    expect(human).toMatchObject({ actor: 'operator@studio.example', action: 'atlas.reclassify', details: { previousStatus: 'classified', previousIntent: 'run' } })

    model.answer(json('chantier', 0.9))
    await reprocess(db, model.facade(db), [queued.id], { config })
    const after = await inboxOf(db, id)
    expect(after).toMatchObject({ status: 'classified', intent: 'chantier', materialisedKind: 'chantier' })
    const [run] = await db.select().from(workRuns).where(eq(workRuns.id, runId))
    expect(run!.status).toBe('cancelled')
    const [chantier] = await db.select().from(workChantiers).where(eq(workChantiers.id, after.materialisedId!))
    expect(chantier).toMatchObject({ sourceMessageId: id, status: 'draft' })
    expect(await actionsOf(db, id)).toEqual(['received', 'classified', 'materialised', 'reclassify_requested', 'classified', 'materialised'])

    // Back to run: the same run record comes back to life, no second one.
    await requestReclassification(db, id, 'operator@studio.example')
    model.answer(json('run', 0.95))
    await reprocess(db, model.facade(db), [after.id], { config })
    const final = await inboxOf(db, id)
    expect(final.materialisedId).toBe(runId)
    expect((await db.select().from(workRuns).where(eq(workRuns.sourceMessageId, id))).map(r => r.status)).toEqual(['open'])
    expect((await db.select().from(workChantiers).where(eq(workChantiers.sourceMessageId, id))).map(r => r.status)).toEqual(['cancelled'])
  })

  it('refuses an unknown message and one that cannot be re-classified', async () => {
    const { db } = database()
    expect(await requestReclassification(db, 987_654, 'operator@studio.example')).toEqual({ ok: false, code: 'not_found' })
    const id = await classified('Bientôt en spawn', json('run', 0.9))
    await db.update(atlasInbox).set({ status: 'spawn_queued' }).where(eq(atlasInbox.messageId, id))
    expect(await requestReclassification(db, id, 'operator@studio.example')).toEqual({ ok: false, code: 'not_reclassifiable', status: 'spawn_queued' })
    expect((await inboxOf(db, id)).status).toBe('spawn_queued')
  })

  it('a classification in flight does not overwrite a re-classification requested meanwhile', async () => {
    const { db } = database()
    model.answer(json('run', 0.9))
    const raw = await compose({ subject: 'Course' })
    let messageRowId = 0
    const delivery = await deliver(db, model.facade(db), [raw], {
      config,
      checkpoint: async (point) => {
        if (point !== 'before_classify_commit') return
        const [row] = await db.select().from(atlasInbox).where(eq(atlasInbox.status, 'received')).orderBy(atlasInbox.id)
        messageRowId = row!.messageId
        // Someone moves the row while the model was answering.
        await db.update(atlasInbox).set({ revision: row!.revision + 1, statusReason: 'changed by someone else' }).where(eq(atlasInbox.id, row!.id))
      },
    })
    expect(delivery.report).toMatchObject({ classified: 0, stale: 1 })
    expect(await inboxOf(db, messageRowId)).toMatchObject({ status: 'received', intent: null, materialisedKind: null, statusReason: 'changed by someone else' })
    expect(await db.select().from(workRuns).where(eq(workRuns.sourceMessageId, messageRowId))).toEqual([])
  })

  it('reports per intent the count, mean and deviation of the confidence, success, uncertainty, failures and the promotion threshold', async () => {
    const { db } = database()
    const month = currentMonth(new Date())
    const baseline = await computeCalibration(db, month)
    await classified('R1', json('run', 0.9))
    await classified('R2', json('run', 0.6))
    const cancelled = await classified('R3', json('run', 0.8))
    await classified('N1', json('noise', 0.99))
    model.answer(json('nope', 0.9))
    await deliver(db, model.facade(db), [await compose({ subject: 'F1' })], { config })
    const runRecord = (await inboxOf(db, cancelled)).materialisedId!
    await db.update(workRuns).set({ status: 'cancelled' }).where(eq(workRuns.id, runRecord))

    const report = await computeCalibration(db, month)
    const run = report.intents.find(i => i.intent === 'run')!
    const runBefore = baseline.intents.find(i => i.intent === 'run')!
    expect(run.classified - runBefore.classified).toBe(3)
    expect(run.cancelledJobs - runBefore.cancelledJobs).toBe(1)
    expect(report.totals.classificationFailures - baseline.totals.classificationFailures).toBe(1)
    expect(report.totals.uncertain - baseline.totals.uncertain).toBe(1)
    if (runBefore.classified === 0) {
      expect(run.meanConfidence).toBeCloseTo((0.9 + 0.6 + 0.8) / 3, 4)
      expect(run.stdDevConfidence).toBeCloseTo(Math.sqrt(((0.9 - 0.7667) ** 2 + (0.6 - 0.7667) ** 2 + (0.8 - 0.7667) ** 2) / 3), 3)
      expect(run.successRate).toBeCloseTo(2 / 3, 4)
      expect(run.uncertaintyRate).toBeCloseTo(1 / 3, 4)
    }
    expect(report.intents.map(i => i.intent)).toEqual(['run', 'chantier', 'question', 'noise', 'negociation', 'conseil'])
    expect(report.intents.find(i => i.intent === 'noise')!.successRate).toBeNull()
    expect(report.promotion).toMatchObject({ threshold: 0.9, minJobs: 30, reached: false })
    expect(report.promotion.explanation).toMatch(/^Not reached: .* Atlas stays internal\.$/)
    // An earlier month holds nothing.
    const empty = await computeCalibration(db, '2001-01')
    expect(empty.totals.classified).toBe(0)
    expect(monthRange('2026-12')).toEqual({ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') })
    expect(previousMonth(new Date('2027-01-15T00:00:00Z'))).toBe('2026-12')
  })

  it('reaches the promotion threshold only above 90 % over at least 30 jobs', async () => {
    const { db } = database()
    const month = currentMonth(new Date())
    const before = (await computeCalibration(db, month)).promotion
    expect(before.reached).toBe(false)
    const ids: number[] = []
    for (let i = 0; i < 30; i++) ids.push(await classified(`Job ${i}`, json('run', 0.95)))
    const after = (await computeCalibration(db, month)).promotion
    expect(after.jobs).toBe(before.jobs + 30)
    expect(after.successes).toBe(before.successes + 30)
    expect(after.jobs).toBeGreaterThanOrEqual(30)
    expect(after.successRate!).toBeGreaterThan(0.9)
    expect(after.reached).toBe(true)
    expect(after.explanation).toMatch(/^Reached: /)
    // Cancel jobs until the success rate is no longer above 90 %.
    let cancelled = 0
    while ((after.successes - cancelled) / after.jobs > 0.9) {
      const record = (await inboxOf(db, ids[cancelled]!)).materialisedId!
      await db.update(workRuns).set({ status: 'cancelled' }).where(eq(workRuns.id, record))
      cancelled += 1
    }
    const below = (await computeCalibration(db, month)).promotion
    expect(below.successes).toBe(after.successes - cancelled)
    expect(below.reached).toBe(false)
  })

  it('runs as the atlas-calibration automate: text or --json, stored for the hub, and a bad month refused', async () => {
    const { db, url } = database()
    const month = currentMonth(new Date())
    const json = await runTs('automates/run.ts', ['atlas-calibration', '--month', month, '--json'], { env: { DATABASE_URL: url } })
    expect(json.code, json.output).toBe(0)
    const line = json.output.split('\n').find(l => l.startsWith('{'))!
    const report = JSON.parse(line)
    expect(report).toMatchObject({ month, promotion: { threshold: 0.9, minJobs: 30 } })
    const [stored] = await db.select().from(atlasCalibrationReports).where(eq(atlasCalibrationReports.month, month))
    expect(stored!.report).toMatchObject({ month })
    const text = await runTs('automates/run.ts', ['atlas-calibration', '--month', month, '--dry-run'], { env: { DATABASE_URL: url } })
    expect(text.code, text.output).toBe(0)
    expect(text.output).toContain(`Atlas classifier calibration, ${month}`)
    expect(text.output).toMatch(/promotion: (Not reached|Reached)/)
    const bad = await runTs('automates/run.ts', ['atlas-calibration', '--month', '2026-13'], { env: { DATABASE_URL: url } })
    expect(bad.code).toBe(1)
    expect(bad.output).toContain('--month must be YYYY-MM, got "2026-13"')
  }, 60_000)
})
