// The nightly maintenance loop on both databases, over a planted documentation tree and its
// code tree, with a scripted loopback model for the deep regeneration: the planted dead
// reference found and repaired in the published chapter, the unreferenced unit listed, a
// regenerated proposal with a planted secret or IP refused by the gates and left in staging,
// deep bounded by --deep-max, the morning report row with each step's code (one per night),
// exit 0 / 1 / 2 each by a case through the automate's CLI, and a dry-run that writes nothing
// (tables, docs, staging) and bypasses the circuit breaker.
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { ROOT, runTs } from '#tests/helpers/processes'
import { everyTableDigest } from '#tests/helpers/table-digest'
import type { Db } from '#db/client'
import { maintCoverage, maintDriftChapters, maintInspections, maintNights } from '#db/schema/health'
import { opsCronRuns } from '#db/schema/ops'
import { automates } from '#automates/registry'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { runMaintenanceLoop, type LoopOptions } from '../../core/maintenance/loop'
import { clearNight, plantAutomation, plantRun, plantTask } from '../fixtures/night'
import { ageChapter, folderContents, plantDocsTree, type DocsTree } from '../fixtures/docs-tree'

const TMP = join(ROOT, 'tests/.tmp')
const NOW = new Date()
const REGENERATED = '# Removed module\n\nThe old helper is gone; paths are joined by `src/util/paths.ts#joinPath`.\n'
const NOTE = 'All is well tonight.'
const planted: DocsTree[] = []
const plantTree = async (...args: Parameters<typeof plantDocsTree>) => {
  const tree = await plantDocsTree(...args)
  planted.push(tree)
  return tree
}

async function plantHealthyStudio(db: Db): Promise<void> {
  await plantTask(db, 'todo')
  await plantAutomation(db, 'learning-classify')
  await plantRun(db, 'learning-classify', 'ok', new Date(NOW.getTime() - 3_600_000))
}

describeOnBothDatabases('maintenance loop', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
    model.byDefault(() => NOTE)
  })
  afterAll(async () => {
    await model.close()
    for (const tree of planted.splice(0)) await rm(tree.root, { recursive: true, force: true })
  })
  beforeEach(async () => {
    model.reset()
    await clearNight(database().db)
  })

  function options(tree: DocsTree, overrides: Partial<LoopOptions> = {}): LoopOptions {
    const { db } = database()
    const log: string[] = []
    return {
      db,
      docsDir: tree.docs,
      codeDir: tree.code,
      stagingDir: tree.staging,
      dryRun: false,
      deep: true,
      deepMax: 4,
      deepBudgetMs: 60_000,
      now: NOW,
      ai: model.facade(db),
      log: line => log.push(line),
      runAutomate: async (name, args) => (await automates[name]!()).run({
        db, args: [...args, ...(name === 'health-report' ? ['--no-voice'] : [])], host: 'test', signal: new AbortController().signal,
        now: () => NOW, log: line => log.push(line), notConfigured: () => {},
      }),
      ...overrides,
    }
  }

  it('finds the planted dead reference and publishes the repair; lists the unreferenced unit; regenerates the rest; one morning row per night', async () => {
    const { db } = database()
    const tree = await plantTree(TMP)
    model.answer(REGENERATED)
    const first = await runMaintenanceLoop(options(tree))

    const [initial] = await db.select().from(maintInspections).where(sql`phase = 'initial'`)
    expect(initial).toMatchObject({ chaptersTotal: 3, chaptersDrifted: 2, deadReferences: 2 })
    const drifting = await db.select().from(maintDriftChapters).where(sql`inspection_id = ${initial!.id}`)
    expect(drifting.map(d => [d.chapter, d.deadReferences]).sort()).toEqual([['engine.md', ['src/engine.ts#startEngine']], ['gone.md', ['src/removed.ts']]])
    const [coverage] = await db.select().from(maintCoverage)
    expect(coverage).toMatchObject({ unitsTotal: 3, uncoveredUnits: ['src/orphan.ts'] })

    // The mechanical repair, published past the gates: the moved file found by its basename.
    expect(await readFile(join(tree.docs, 'engine.md'), 'utf8')).toContain('`src/core/engine.ts#startEngine`')
    // The unrepairable one went to the model, with the dead reference and the code's symbols.
    expect(model.requests()).toHaveLength(1)
    expect(model.prompt()).toMatch(/Dead references: src\/removed\.ts/)
    expect(model.prompt()).toMatch(/src\/util\/paths\.ts: joinPath/)
    expect(await readFile(join(tree.docs, 'gone.md'), 'utf8')).toBe(REGENERATED)

    const [reinspection] = await db.select().from(maintInspections).where(sql`phase = 'reinspection'`)
    expect(reinspection).toMatchObject({ chaptersDrifted: 0, deadReferences: 0, score: 100 })
    expect(first.steps.map(s => [s.step, s.exitCode])).toEqual([
      ['inspection', 1], ['coverage', 1], ['repair', 1], ['deep', 0], ['proposal', 0], ['publishing', 0],
      ['reinspection', 0], ['health-report', 2], ['snapshot', 0],
    ])
    // Coverage is critical (src/orphan.ts): health critical → exit 2.
    expect(first.exitCode).toBe(2)

    await runMaintenanceLoop(options(tree, { deep: false }))
    const nights = await db.select().from(maintNights)
    expect(nights).toHaveLength(1)
    expect(nights[0]).toMatchObject({ night: NOW.toISOString().slice(0, 10), exitCode: 2 })
    expect(nights[0]!.steps.map(s => s.step)).toEqual(first.steps.map(s => s.step))
    expect(nights[0]!.steps.find(s => s.step === 'deep')).toMatchObject({ exitCode: 0, summary: 'skipped (--no-deep)' })
  }, 60_000)

  it.each([
    ['a secret', '# Removed module\n\nConnect with password = "hunter2-correct-horse" to `src/util/paths.ts`.\n', /secret: password or token assignment/],
    ['an IP address', '# Removed module\n\nThe helper now runs on 10.20.30.40 next to `src/util/paths.ts`.\n', /internal address: an IP address/],
  ])('refuses a regenerated proposal with %s: the chapter is untouched, the proposal stays in staging with why', async (_, answer, why) => {
    const tree = await plantTree(TMP)
    model.answer(answer)
    const result = await runMaintenanceLoop(options(tree))
    expect(await readFile(join(tree.docs, 'gone.md'), 'utf8')).toContain('`src/removed.ts`')
    const night = join(tree.staging, result.night)
    expect(await readFile(join(night, 'gone.md'), 'utf8')).toBe(answer)
    expect(await readFile(join(night, 'gone.md.refused.txt'), 'utf8')).toMatch(why)
    expect(result.steps.find(s => s.step === 'publishing')).toMatchObject({ exitCode: 1, summary: '1 published, 1 refused by the gates (left in staging)' })
    expect(result.steps.find(s => s.step === 'reinspection')!.exitCode).toBe(1)
  }, 60_000)

  it('regenerates at most --deep-max chapters', async () => {
    const tree = await plantTree(TMP)
    await ageChapter(tree, 'guides/paths.md')
    model.byDefault(() => REGENERATED)
    const result = await runMaintenanceLoop(options(tree, { deepMax: 1 }))
    expect(model.requests()).toHaveLength(1)
    expect(result.steps.find(s => s.step === 'deep')!.summary).toBe('1 of 2 drifting chapters regenerated (max 1), 0 failed, 1 not started')
    model.byDefault(() => NOTE)
  }, 60_000)

  it('records a crashed step with code 3, runs the steps after it, and the night exits 3', async () => {
    const { db } = database()
    const tree = await plantTree(TMP)
    const base = options(tree, { deep: false })
    const result = await runMaintenanceLoop({
      ...base,
      runAutomate: async (name, args) => {
        if (name === 'health-report') throw new Error('the report broke')
        return base.runAutomate(name, args)
      },
    })
    expect(result.exitCode).toBe(3)
    expect(result.steps.slice(-2).map(s => [s.step, s.exitCode, s.summary])).toEqual([
      ['health-report', 3, 'crashed: the report broke'], ['snapshot', 1, 'read error (best effort, the night goes on)'],
    ])
    const [night] = await db.select().from(maintNights)
    expect(night!.exitCode).toBe(3)
  }, 60_000)

  it('runs as an automate: exit 0 clean, 1 drift present, 2 critical health; a snapshot push error does not stop the night', async () => {
    const { db, url } = database()
    await plantHealthyStudio(db)
    const env = (tree: DocsTree) => ({
      DATABASE_URL: url, DOCS_DIR: tree.docs, DOCS_CODE_DIR: tree.code, DOCS_STAGING_DIR: tree.staging,
      SNAPSHOT_DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none', ...model.env,
    })
    const covering = { 'engine.md': '# Engine\n\nSee `src/core/engine.ts`, `src/util/paths.ts` and `lonely()`.\n' }
    const clean = await plantTree(TMP, covering)
    const zero = await runTs('automates/run.ts', ['maintenance-loop', '--no-deep'], { env: env(clean) })
    expect(zero.code, zero.output).toBe(0)
    expect(zero.output).toMatch(/\[9\] snapshot: 2 — push error/)

    await ageChapter(clean, 'engine.md')
    const one = await runTs('automates/run.ts', ['maintenance-loop', '--no-deep'], { env: env(clean) })
    expect(one.code, one.output).toBe(1)

    const broken = await plantTree(TMP, { ...covering, 'gone.md': '# Gone\n\nSee `src/removed.ts`.\n' })
    const two = await runTs('automates/run.ts', ['maintenance-loop', '--no-deep'], { env: env(broken) })
    expect(two.code, two.output).toBe(2)

    const runs = await db.select().from(opsCronRuns).where(sql`automation = 'maintenance-loop'`).orderBy(opsCronRuns.id)
    expect(runs.map(r => [r.status, r.exitCode])).toEqual([['ok', 0], ['ok', 1], ['ok', 2]])
    const [night] = await db.select().from(maintNights)
    expect(night!.exitCode).toBe(2)
    expect(night!.steps).toHaveLength(9)
  }, 180_000)

  it('--dry-run writes nothing (tables, docs, staging) and runs even with the circuit breaker off', async () => {
    const { db, url } = database()
    const tree = await plantTree(TMP)
    await plantAutomation(db, 'maintenance-loop', { active: false, updatedBy: 'founder@studio.test' })
    const before = {
      tables: await everyTableDigest(db),
      docs: await folderContents(tree.docs),
      staging: await folderContents(tree.staging),
    }
    model.byDefault(() => REGENERATED)
    const env = { DATABASE_URL: url, DOCS_DIR: tree.docs, DOCS_CODE_DIR: tree.code, DOCS_STAGING_DIR: tree.staging, ...model.env }
    const dry = await runTs('automates/run.ts', ['maintenance-loop', '--dry-run'], { env })
    expect(dry.output).toMatch(/repair engine\.md: src\/engine\.ts#startEngine → src\/core\/engine\.ts#startEngine/)
    expect(dry.output).toMatch(/would regenerate gone\.md/)
    expect(dry.output).toMatch(/\[dry-run\] nothing written/)
    expect(model.requests()).toHaveLength(0)
    expect(dry.code, dry.output).toBe(2)
    expect({
      tables: await everyTableDigest(db),
      docs: await folderContents(tree.docs),
      staging: await folderContents(tree.staging),
    }).toEqual(before)
    const live = await runTs('automates/run.ts', ['maintenance-loop'], { env })
    expect(live.output).toMatch(/skipped — circuit breaker/)
    // A bad flag fails the run with 64 before anything is read.
    const bad = await runTs('automates/run.ts', ['maintenance-loop', '--dry-run', '--deep-max=-1'], { env })
    expect(bad.code, bad.output).toBe(64)
    expect(bad.output).toMatch(/--deep-max takes a whole number/)
    expect(await folderContents(tree.docs)).toEqual(before.docs)
    model.byDefault(() => NOTE)
  }, 120_000)
})
