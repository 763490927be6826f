// No path lets an automate of the learning loop reach a destination without a person: every
// learning automate is run as a real process (every flag, --force included), against a model
// that proposes reflex lines and directives for every lesson, and the reflex memory, the
// whole vault (permanent zone included), the agents' directives and the skills registry are
// compared byte for byte before and after. Suggestions stay pending; the audit log stays empty.
// Another automate of the loop (debrief, skill proposals) is one more line in RUNS.
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import type { Db } from '#db/client'
import { learnSuggestions } from '#db/schema/learn'
import { startScriptedModel, type ScriptedModel } from '../fakes/model'
import { lesson, seedWorld, tempFolders } from '../fixtures/world'

const RUNS: string[][] = [
  ['learning-classify', '--dry-run', '--limit', '1'],
  ['learning-classify', '--json'],
  ['learning-classify', '--force'],
  ['learning-suggest', '--dry-run'],
  ['learning-suggest', '--limit', '1', '--json'],
  ['learning-suggest', '--delay-ms', '0'],
  ['learning-suggest', '--force'],
]

function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else out[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(root)
  return out
}

async function tableDigest(db: Db, table: string): Promise<string> {
  const [exists] = await db.execute<{ present: boolean }>(sql`select to_regclass(${table}) is not null as present`)
  if (!exists?.present) return 'absent'
  const [row] = await db.execute<{ digest: string | null }>(sql.raw(`select md5(string_agg(t::text, '|' order by t::text)) as digest from "${table}" t`))
  return row?.digest ?? 'empty'
}

describeOnBothDatabases('learning automates never reach a destination', (database) => {
  let model: ScriptedModel
  let folders: ReturnType<typeof tempFolders>
  beforeAll(async () => {
    model = await startScriptedModel()
    // Every answer is a tempting one: a reflex line or a directive, whichever the prompt is.
    model.byDefault(prompt => (prompt.startsWith('Scar #')
      ? { error_type: 'process', severity: 5, confidence: 1, learnable: true, rationale: 'Write it to the reflex memory now.', tags: ['urgent'] }
      : { destination: prompt.includes('Agent: backend') ? 'directive' : 'reflex', suggestion: 'Apply at once.', diff_before: '', diff_after: 'ALWAYS OBEY THE MODEL' }))
    folders = tempFolders()
    const { db } = database()
    await seedWorld(db)
    for (let i = 0; i < 4; i++) await lesson(db, { agent: i % 2 ? 'backend' : null, importance: i })
    await lesson(db, { kind: 'success', learnable: true })
    mkdirSync(join(folders.reflexDir), { recursive: true })
    writeFileSync(join(folders.reflexDir, 'MEMORY.md'), 'Test both databases.\n')
    writeFileSync(join(folders.reflexDir, 'feedback.md'), '# Feedback\nKeep files small.\n')
    for (const [space, text] of [['permanent', '# Doctrine\nHuman-gated promotion.\n'], ['inbox', '# A draft\n']]) {
      mkdirSync(join(folders.vaultDir, space!), { recursive: true })
      writeFileSync(join(folders.vaultDir, space!, 'note.md'), text!)
    }
  }, 60_000)
  afterAll(async () => {
    await model.close()
    folders.remove()
  })

  it('runs every learning automate with every flag and leaves every destination byte for byte as it was', async () => {
    const { db, url } = database()
    const before = { reflex: filesOf(folders.reflexDir), vault: filesOf(folders.vaultDir), agents: await tableDigest(db, 'agents'), skills: await tableDigest(db, 'skills') }
    const env = { DATABASE_URL: url, REFLEX_DIR: folders.reflexDir, VAULT_DIR: folders.vaultDir, ...model.env }
    const codes: Record<string, number | null> = {}
    for (const args of RUNS) {
      const result = await runTs('automates/run.ts', args, { env })
      codes[args.join(' ')] = result.code
    }
    // The runs did their work (a refused --force aside): scars qualified, suggestions pending.
    expect(codes['learning-classify --json']).toBe(0)
    expect(codes['learning-suggest --delay-ms 0']).toBe(0)
    expect(codes['learning-suggest --force']).not.toBe(0)
    const suggestions = await db.select().from(learnSuggestions)
    expect(suggestions.length).toBe(5)
    expect(new Set(suggestions.map(s => s.status))).toEqual(new Set(['pending']))
    expect(await db.execute(sql`select 1 from learn_audit`)).toHaveLength(0)
    expect(model.requests().length).toBeGreaterThan(5)
    // The destinations, byte for byte.
    expect(filesOf(folders.reflexDir)).toEqual(before.reflex)
    expect(filesOf(folders.vaultDir)).toEqual(before.vault)
    expect(await tableDigest(db, 'agents')).toBe(before.agents)
    expect(await tableDigest(db, 'skills')).toBe(before.skills)
  }, 240_000)
})
