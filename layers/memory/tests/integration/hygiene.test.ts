// Current memory hygiene run as a real automate on both databases: the decommissioned file
// archived out of REFLEX_DIR with its index line removed, the unreferenced duplicate removed
// (archived) and the kept copy's references intact, the dead link and the orphan reported in
// the JSON report kept on disk; --dry-run changes nothing (folder and tables) and exits 3;
// --validate-only exits 0; a missing REFLEX_DIR exits 1; a step that cannot finish exits 2.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest } from '#tests/helpers/table-digest'
import { memoryFolders } from '../fixtures/folders'
import { filesOf, INDEX, plantCurrentMemory, plantVault } from '../fixtures/current-memory'
import { memNotes } from '#db/schema/mem'

const folders = memoryFolders('synedre-hygiene-')
afterAll(() => folders.remove())
const archiveDir = join(folders.root, 'archive')
const reportDir = join(folders.root, 'reports')
const today = () => new Date().toISOString().slice(0, 10)

describeOnBothDatabases('memory hygiene', (database) => {
  beforeEach(async () => {
    plantCurrentMemory(folders.reflexDir)
    plantVault(folders.vaultDir)
    const { db } = database()
    await db.execute(sql`truncate mem_notes`)
    for (const path of ['inbox/keep.md', 'permanent/old-doctrine.md']) {
      await db.insert(memNotes).values({ path, space: path.split('/')[0] as 'inbox', title: path, body: '', size: 1, fileModifiedAt: new Date() })
    }
  })
  const run = (args: string[], env: Record<string, string> = {}) =>
    runTs('automates/run.ts', ['memory-hygiene', ...args], {
      env: {
        DATABASE_URL: database().url,
        REFLEX_DIR: folders.reflexDir,
        VAULT_DIR: folders.vaultDir,
        MEMORY_ARCHIVE_DIR: archiveDir,
        MEMORY_HYGIENE_REPORT_DIR: reportDir,
        ...env,
      },
    })
  const report = (output: string) => JSON.parse(output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1)) as { exitCode: number, steps: Array<{ step: string, status: string, details: Record<string, unknown>, errors: string[] }> }

  it('--dry-run reports the dead links and what it would do, changes nothing and exits 3', async () => {
    const { db } = database()
    const before = {
      memory: filesOf(folders.reflexDir),
      vault: filesOf(folders.vaultDir),
      archive: filesOf(archiveDir),
      tables: await everyTableDigest(db),
    }
    const dry = await run(['--dry-run'])
    expect(dry.code, dry.output).toBe(3)
    const json = report(dry.output)
    expect(json.steps.map(s => [s.step, s.status])).toEqual([['validate', 'ok'], ['dead_links', 'ok'], ['archive', 'simulated'], ['dedupe', 'simulated']])
    expect(json.steps[1]!.details).toMatchObject({ dead: [{ line: 5, target: 'gone.md' }], orphans: ['copy-a.md', 'orphan.md'] })
    expect(json.steps[2]!.details).toEqual({ files: ['old-cache.md'], vaultNotes: ['permanent/old-doctrine.md'] })
    expect(json.steps[3]!.details).toEqual({ duplicates: [{ kept: 'copy-b.md', removed: ['copy-a.md'] }] })
    expect(filesOf(folders.reflexDir)).toEqual(before.memory)
    expect(filesOf(folders.vaultDir)).toEqual(before.vault)
    expect(filesOf(archiveDir)).toEqual(before.archive)
    expect(await everyTableDigest(db)).toEqual(before.tables)
    // The report is kept on disk even in dry-run; the run is informational, not a failure.
    expect(readdirSync(reportDir).length).toBeGreaterThan(0)
    const [last] = await db.execute<{ status: string, exit_code: number }>(sql`select status, exit_code from ops_cron_runs where automation = 'memory-hygiene' order by id desc limit 1`)
    expect(last).toMatchObject({ status: 'ok', exit_code: 3 })
  }, 60_000)

  it('archives the decommissioned file and its index line (and the vault\'s obsolete note and its index row), removes the unreferenced duplicate, exits 0', async () => {
    const { db } = database()
    const live = await run([])
    expect(live.code, live.output).toBe(0)
    const day = join(archiveDir, today())
    expect(readFileSync(join(day, 'old-cache.md'), 'utf8')).toContain('status: decommissioned')
    expect(readFileSync(join(day, 'duplicates', 'copy-a.md'), 'utf8')).toBe('# Copy rule\nSame bytes.\n')
    expect(readFileSync(join(day, 'vault', 'permanent', 'old-doctrine.md'), 'utf8')).toContain('status: obsolete')
    expect(Object.keys(filesOf(folders.vaultDir))).toEqual(['inbox/keep.md'])
    expect((await db.select({ path: memNotes.path }).from(memNotes)).map(n => n.path)).toEqual(['inbox/keep.md'])
    expect(Object.keys(filesOf(folders.reflexDir)).sort()).toEqual(['MEMORY.md', 'copy-b.md', 'deploy.md', 'orphan.md'])
    const index = readFileSync(join(folders.reflexDir, 'MEMORY.md'), 'utf8')
    expect(index).toBe(INDEX.split('\n').filter(line => !line.includes('old-cache.md')).join('\n'))
    // A second run finds nothing left to do.
    const again = report((await run([])).output)
    expect(again.steps[2]!.details).toMatchObject({ files: [], vaultNotes: [] })
    expect(again.steps[3]!.details).toMatchObject({ duplicates: [] })
  }, 60_000)

  it('--validate-only stops after the validation (exit 0); a missing REFLEX_DIR exits 1 with no step run', async () => {
    const only = await run(['--validate-only'])
    expect(only.code, only.output).toBe(0)
    expect(report(only.output).steps.map(s => s.step)).toEqual(['validate'])
    const missing = await run([], { REFLEX_DIR: join(folders.root, 'nowhere') })
    expect(missing.code, missing.output).toBe(1)
    const json = report(missing.output)
    expect(json.steps).toHaveLength(1)
    expect(json.steps[0]!.errors.join(' ')).toMatch(/is not a folder/)
    const inside = await run([], { MEMORY_ARCHIVE_DIR: join(folders.reflexDir, 'archive') })
    expect(inside.code, inside.output).toBe(1)
  }, 60_000)

  it('a step that cannot finish stops the pipeline with exit 2 and loses nothing', async () => {
    // The day's archive folder is taken by a file: the archiving step cannot move anything.
    rmSync(archiveDir, { recursive: true, force: true })
    mkdirSync(archiveDir, { recursive: true })
    writeFileSync(join(archiveDir, today()), 'in the way')
    try {
      const before = filesOf(folders.reflexDir)
      const failed = await run([])
      expect(failed.code, failed.output).toBe(2)
      const json = report(failed.output)
      expect(json.steps.map(s => [s.step, s.status])).toEqual([['validate', 'ok'], ['dead_links', 'ok'], ['archive', 'failed']])
      expect(filesOf(folders.reflexDir)).toEqual(before)
    }
    finally {
      rmSync(join(archiveDir, today()), { recursive: true, force: true })
    }
  }, 60_000)
})
