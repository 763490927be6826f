// memory-metrics run as a real automate on both databases: one row per day (a second run the
// same day replaces it), rows past 90 days pruned, the current memory's measures with the
// lessons, embeddings and recalls; a threshold crossed raises one alert, resolved when the
// measure is back under; --json; --dry-run writes nothing (tables and folder); a bad setting
// is refused with a non-zero exit.
import { join } from 'node:path'
import { rmSync, writeFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { afterAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest } from '#tests/helpers/table-digest'
import { memMetrics } from '#db/schema/health'
import { learnLessons } from '#db/schema/learn'
import { opsAlerts } from '#db/schema/ops'
import { memoryFolders } from '../fixtures/folders'
import { filesOf, INDEX, plantCurrentMemory } from '../fixtures/current-memory'

const folders = memoryFolders('synedre-metrics-')
afterAll(() => folders.remove())

describeOnBothDatabases('memory metrics', (database) => {
  beforeEach(async () => {
    plantCurrentMemory(folders.reflexDir)
    const { db } = database()
    await db.execute(sql`truncate mem_metrics, ops_alerts, learn_lessons cascade`)
  })
  const run = (args: string[], env: Record<string, string> = {}) => runTs('automates/run.ts', ['memory-metrics', ...args], {
    env: { DATABASE_URL: database().url, REFLEX_DIR: folders.reflexDir, MEMORY_MAX_DEAD_LINKS: '0', MEMORY_MAX_ORPHANS: '5', ...env },
  })
  const day = () => new Date().toISOString().slice(0, 10)

  it('records one row per day, prunes past 90 days, measures the memory and the lessons', async () => {
    const { db } = database()
    await db.insert(learnLessons).values([{ title: 'a', recallCount: 3 }, { title: 'b', recallCount: 4 }, { title: 'c', archivedAt: new Date(), recallCount: 1 }])
    const old = new Date(Date.now() - 91 * 86_400_000).toISOString().slice(0, 10)
    const kept = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10)
    for (const d of [old, kept])
      await db
        .insert(memMetrics)
        .values({ day: d, notes: 1, bytes: 1, indexLines: 1, deadLinks: 0, orphans: 0, lessons: 0, embeddings: 0, recalls: 0 })
    const first = await run(['--json'])
    expect(first.code, first.output).toBe(0)
    const json = JSON.parse(first.output.split('\n').find(line => line.startsWith('{'))!) as { measures: Record<string, unknown>, pruned: number }
    expect(json.measures).toMatchObject({
      day: day(),
      notes: 5,
      indexLines: 4,
      deadLinks: 1,
      orphans: 2,
      lessons: 2,
      embeddings: 0,
      recalls: 8,
    })
    expect(json.pruned).toBe(1)
    expect(await run([])).toMatchObject({ code: 0 })
    const rows = await db.select().from(memMetrics).orderBy(memMetrics.day)
    expect(rows.map(r => r.day)).toEqual([kept, day()])
  }, 120_000)

  it('raises one alert per threshold crossed and resolves it when the measure is back under', async () => {
    const { db } = database()
    await run([])
    await run([])
    const alerts = await db.select().from(opsAlerts)
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({ kind: 'memory_threshold', subject: 'deadLinks', resolvedAt: null })
    expect(alerts[0]!.message).toMatch(/1 dead links in the index, above 0 \(MEMORY_MAX_DEAD_LINKS\)/)
    // The dead link removed from the index: the alert is resolved.
    writeFileSync(join(folders.reflexDir, 'MEMORY.md'), INDEX.split('\n').filter(line => !line.includes('gone.md')).join('\n'))
    await run([])
    const [resolved] = await db.select().from(opsAlerts)
    expect(resolved!.resolvedAt).not.toBeNull()
    // A lower orphan limit crosses another threshold.
    const strict = await run([], { MEMORY_MAX_ORPHANS: '1' })
    expect(strict.output).toMatch(/alert: Current memory: 2 orphaned files, above 1/)
    expect((await db.select().from(opsAlerts)).filter(a => a.resolvedAt === null).map(a => a.subject)).toEqual(['orphans'])
  }, 120_000)

  it('--dry-run measures and prints, writes nothing; a bad setting is refused', async () => {
    const { db } = database()
    const before = { tables: await everyTableDigest(db), memory: filesOf(folders.reflexDir) }
    const dry = await run(['--dry-run'])
    expect(dry.code, dry.output).toBe(0)
    expect(dry.output).toMatch(/1 dead links/)
    expect(dry.output).toMatch(/\[dry-run\] nothing written/)
    expect(await everyTableDigest(db)).toEqual(before.tables)
    expect(filesOf(folders.reflexDir)).toEqual(before.memory)
    const bad = await run([], { MEMORY_MAX_ORPHANS: '-3' })
    expect(bad.code).not.toBe(0)
    expect(bad.output).toMatch(/MEMORY_MAX_ORPHANS must be a whole number/)
    rmSync(join(folders.reflexDir, 'MEMORY.md'))
    const noIndex = await run(['--json'])
    expect(noIndex.code, noIndex.output).toBe(0)
  }, 120_000)
})
