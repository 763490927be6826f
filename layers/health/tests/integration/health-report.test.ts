// The health report on both databases: each dimension against planted rows (and `unknown`,
// never green, when the maintenance loop has not run), only the studio's own active
// automations counting, one snapshot per date, Nightingale's care note through a scripted
// loopback model (empty when the model is down), and the automate run as a real process:
// exit 0 / 1 / 2 each produced by a case, --no-voice, and a dry-run that writes nothing.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest } from '#tests/helpers/table-digest'
import type { Db } from '#db/client'
import { healthReports } from '#db/schema/health'
import { opsCronRuns } from '#db/schema/ops'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { buildHealthReport, saveHealthReport } from '../../core/report/report'
import { measureDimensions } from '../../core/report/dimensions'
import { trimCareNote } from '../../core/report/care-note'
import { clearNight, plantAutomation, plantCoverage, plantHealthyNight, plantInspection, plantRun, plantTask } from '../fixtures/night'

const NOW = new Date('2026-12-01T05:30:00Z')
const NOTE = 'The studio is well tonight. Nothing needs your care. Keep the classifier running.'
const byKey = async (db: Db, now = NOW) => Object.fromEntries((await measureDimensions(db, now)).map(d => [d.key, d]))

describeOnBothDatabases('health report', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
  })
  afterAll(async () => model.close())
  beforeEach(async () => {
    model.reset()
    await clearNight(database().db)
  })

  it('says unknown, never green, for what the maintenance loop has not inspected yet', async () => {
    const d = await byKey(database().db)
    expect(d.proprioception).toMatchObject({ status: 'unknown', score: null, summary: expect.stringMatching(/not inspected/) })
    expect(d.coverage).toMatchObject({ status: 'unknown', score: null })
    expect(d.automations).toMatchObject({ status: 'unknown' })
    expect(d.learning).toMatchObject({ status: 'critical', summary: expect.stringMatching(/never/) })
  })

  it('reaches each critical threshold from planted rows', async () => {
    const { db } = database()
    await plantInspection(db, [{ chapter: 'docs/memory.md', dead: ['layers/memory/core/gone.ts'], score: 40 }, { chapter: 'docs/atlas.md', dead: [], score: 10 }])
    await plantCoverage(db, 8, ['layers/health/core/report'])
    await plantTask(db, 'blocked')
    await plantAutomation(db, 'learning-classify')
    await plantRun(db, 'learning-classify', 'ok', new Date(NOW.getTime() - 4 * 86_400_000))
    await plantAutomation(db, 'atlas-collect')
    await plantRun(db, 'atlas-collect', 'failed', NOW, 'nothing answers on 127.0.0.1:993: start the service or correct the address')
    const d = await byKey(db)
    expect(d.proprioception).toMatchObject({ status: 'critical', summary: '1 chapter of 10 cite a dead reference.', score: 80 })
    expect(d.coverage).toMatchObject({ status: 'critical', score: 88 })
    expect(d.debt).toMatchObject({ status: 'critical', summary: expect.stringMatching(/1 blocked task/) })
    expect(d.learning).toMatchObject({ status: 'critical', summary: expect.stringMatching(/4 days ago/) })
    // The failing automation with its reason, in words.
    expect(d.automations).toMatchObject({ status: 'critical', summary: expect.stringContaining('failing: atlas-collect (nothing answers on 127.0.0.1:993: start the service or correct the address)') })
  })

  it('warns between the thresholds: drift without dead reference, stale tasks, a classifier two days old', async () => {
    const { db } = database()
    await plantInspection(db, [{ chapter: 'docs/atlas.md', dead: [], score: 10 }])
    await plantTask(db, 'todo', new Date(NOW.getTime() - 20 * 86_400_000))
    await plantRun(db, 'learning-classify', 'ok', new Date(NOW.getTime() - 2 * 86_400_000))
    const d = await byKey(db)
    expect(d.proprioception!.status).toBe('warning')
    expect(d.debt!.status).toBe('warning')
    expect(d.learning!.status).toBe('warning')
  })

  it('counts only the studio\'s own active automations: a tenant\'s failing one and an intentionally disabled one do not degrade', async () => {
    const { db } = database()
    await plantAutomation(db, 'vector-sync')
    await plantRun(db, 'vector-sync', 'ok', NOW)
    await plantAutomation(db, 'tenant-export', { tenant: 'acme' })
    await plantRun(db, 'tenant-export', 'failed', NOW)
    await plantAutomation(db, 'atlas-collect', { active: false, updatedBy: 'founder@studio.test' })
    await plantRun(db, 'atlas-collect', 'failed', new Date(NOW.getTime() - 86_400_000))
    expect((await byKey(db)).automations).toMatchObject({ status: 'ok', score: 100 })
    // Switched off with nobody recorded: unintended.
    await plantAutomation(db, 'note-indexer', { active: false })
    expect((await byKey(db)).automations).toMatchObject({ status: 'critical', summary: expect.stringMatching(/switched off with no one recorded: note-indexer/) })
  })

  it('writes one snapshot per date with Nightingale\'s care note; an empty note when the model is down', async () => {
    const { db } = database()
    await plantHealthyNight(db, NOW)
    model.answer(`${NOTE} A fourth sentence is one too many.`)
    const report = await buildHealthReport(db, { now: NOW, ai: model.facade(db), log: () => {} })
    expect(report).toMatchObject({ date: '2026-12-01', status: 'ok', careNote: NOTE })
    expect(model.prompts()[0]).toMatch(/proprioception: ok/)
    await saveHealthReport(db, report)
    model.fail(10)
    const lines: string[] = []
    const silent = await buildHealthReport(db, { now: NOW, ai: model.facade(db), log: line => lines.push(line) })
    expect(silent.careNote).toBe('')
    expect(lines.join('\n')).toMatch(/unavailable/)
    await saveHealthReport(db, silent)
    const rows = await db.select().from(healthReports)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ reportDate: '2026-12-01', status: 'ok', careNote: '' })
  })

  it('runs as an automate: exit 0 nominal, 1 warning, 2 critical; --no-voice calls no model; the run is recorded ok', async () => {
    const { db, url } = database()
    const env = { DATABASE_URL: url, ...model.env }
    await plantHealthyNight(db, new Date())
    model.byDefault(() => NOTE)
    const nominal = await runTs('automates/run.ts', ['health-report'], { env })
    expect(nominal.code, nominal.output).toBe(0)
    expect(nominal.output).toMatch(/care note: The studio is well tonight/)
    const [saved] = await db.select().from(healthReports)
    expect(saved).toMatchObject({ status: 'ok', careNote: NOTE })

    await plantTask(db, 'todo', new Date(Date.now() - 30 * 86_400_000))
    const calls = model.requests().length
    const warning = await runTs('automates/run.ts', ['health-report', '--no-voice'], { env })
    expect(warning.code, warning.output).toBe(1)
    expect(model.requests()).toHaveLength(calls)

    await plantTask(db, 'blocked')
    const critical = await runTs('automates/run.ts', ['health-report', '--no-voice'], { env })
    expect(critical.code, critical.output).toBe(2)
    expect(await db.select().from(healthReports)).toHaveLength(1)
    // Informational codes: the execution log keeps the code, the run is not a failure.
    const runs = await db.select().from(opsCronRuns).where(sql`automation = 'health-report'`)
    expect(runs.map(r => [r.status, r.exitCode]).sort()).toEqual([['ok', 0], ['ok', 1], ['ok', 2]])
  }, 120_000)

  it('--dry-run prints the report (as JSON with --json) and writes nothing', async () => {
    const { db, url } = database()
    await plantHealthyNight(db, new Date())
    await plantTask(db, 'blocked')
    const before = await everyTableDigest(db)
    const dry = await runTs('automates/run.ts', ['health-report', '--dry-run', '--no-voice'], { env: { DATABASE_URL: url, ...model.env } })
    expect(dry.code, dry.output).toBe(2)
    expect(dry.output).toMatch(/debt\s+critical/)
    expect(dry.output).toMatch(/\[dry-run\] nothing written/)
    const json = await runTs('automates/run.ts', ['health-report', '--dry-run', '--no-voice', '--json'], { env: { DATABASE_URL: url, ...model.env } })
    const report = JSON.parse(json.output.split('\n').find(line => line.startsWith('{'))!) as { status: string, dimensions: Array<{ key: string, status: string }> }
    expect(report.status).toBe('critical')
    expect(report.dimensions.map(d => d.key)).toEqual(['proprioception', 'coverage', 'debt', 'learning', 'automations'])
    expect(await everyTableDigest(db)).toEqual(before)
  }, 60_000)
})

it('keeps a care note to three sentences of plain text', () => {
  expect(trimCareNote('**One.**  Two!\nThree? Four.')).toBe('One. Two! Three?')
  expect(trimCareNote('   ')).toBe('')
  expect(trimCareNote('No final stop')).toBe('No final stop')
})
