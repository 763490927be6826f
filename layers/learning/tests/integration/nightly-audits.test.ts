// The nightly consolidation's three audits on both databases, through the real automate
// (automates/run.ts) where the date allows, else runConsolidation with a chosen `now`: the
// documentary divergence audit flags a planted wrong price, an obsolete pattern and a dense
// numeric table in one draft, not twice; the obsolescence audit gives a stale project a
// non-relevant verdict, keeps an active one relevant, logs once per date and puts the verdict
// in the morning mail; the persona drift scores a modified agent above an untouched one, only
// on the 1st, top 3 in the mail; the dry-run of each writes nothing (tables and vault).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import type { Db } from '#db/client'
import { agents } from '#db/schema/agents'
import { learnObsolescenceLog, learnPersonaDrift } from '#db/schema/learn'
import { memNotes } from '#db/schema/mem'
import { workProjects } from '#db/schema/worksites'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest, folderContents } from '#tests/helpers/table-digest'
import { seedAgents } from '#layers/agents/core/seed'
import { ROSTER } from '#layers/agents/core/roster/index'
import { runConsolidation } from '../../core/nightly/consolidation'
import { startScriptedModel, type ScriptedModel } from '../fakes/model'
import { seedWorld, tempFolders } from '../fixtures/world'

const DAY_MS = 86_400_000
const RULES = {
  canonical: [{ name: 'Starter plan', value: '49 €' }],
  obsolete: [{ pattern: 'fabric\\s+deploy', reason: 'the deploy is the release automate now' }],
  // denseTables left out: the defaults (10 rows, 60 % numbers) apply.
}
const DENSE = ['| Month | Quotes | Won | Revenue |', '|---|---|---|---|', ...Array.from({ length: 12 }, (_, i) => `| ${i + 1} | ${10 + i} | ${i} | ${1000 * i} |`)].join('\n')
const WORDY = ['| Term | Meaning |', '|---|---|', ...Array.from({ length: 12 }, (_, i) => `| term ${i} | what it means |`)].join('\n')

async function note(db: Db, path: string, body: string, space: 'permanent' | 'inbox' = 'permanent'): Promise<void> {
  await db.insert(memNotes).values({ path, space, title: path, body, size: body.length, fileModifiedAt: new Date() })
}

async function project(db: Db, name: string, lastActivity: Date): Promise<string> {
  const [row] = await db.insert(workProjects).values({ name, createdBy: 'test', createdAt: lastActivity, updatedAt: lastActivity }).returning({ id: workProjects.id })
  return row!.id
}

describeOnBothDatabases('nightly audits', (database) => {
  let model: ScriptedModel
  const folders = tempFolders()
  const [drifter, steady] = [ROSTER[0]!.codename, ROSTER[1]!.codename]
  beforeAll(async () => {
    model = await startScriptedModel()
    await seedWorld(database().db)
  })
  afterAll(async () => {
    await model.close()
    folders.remove()
  })
  beforeEach(async () => {
    model.reset()
    const { db } = database()
    await db.execute(sql`truncate learn_nightly_marks, learn_obsolescence_log, learn_persona_drift, mem_notes cascade`)
    await db.execute(sql`delete from work_projects`)
    await seedAgents(db)
  })
  const run = (args: string[], env: Record<string, string> = {}) => runTs('automates/run.ts', ['nightly-consolidation', '--json', ...args], {
    env: { DATABASE_URL: database().url, VAULT_DIR: folders.vaultDir, ...model.env, ...env },
  })
  const report = (output: string) => JSON.parse(output.split('\n').find(line => line.startsWith('{"at"'))!) as { drafts: string[], features: Array<{ feature: string, counts: Record<string, number>, items: Array<Record<string, unknown>>, error?: string, skipped?: string }> }
  const feature = (output: string, name: string) => report(output).features.find(f => f.feature === name)!
  const rulesFile = join(folders.vaultDir, 'rules', 'divergence.json')

  async function plant(db: Db) {
    mkdirSync(join(folders.vaultDir, 'rules'), { recursive: true })
    writeFileSync(rulesFile, JSON.stringify(RULES))
    await note(db, 'permanent/pricing.md', '# Offers\n\nThe Starter plan: 59 € per month, billed yearly.')
    await note(db, 'permanent/offers-ok.md', '# Offers\n\nStarter plan — 49,00 € per month.')
    await note(db, 'permanent/runbook.md', '# Deploy\n\nRun `fabric deploy prod` after the tag.')
    await note(db, 'permanent/figures.md', `# Quotes by month\n\n${DENSE}\n`)
    await note(db, 'permanent/glossary.md', `# Glossary\n\n${WORDY}\n`)
    await note(db, 'inbox/draft.md', 'Starter plan: 99 € (a draft, not audited)', 'inbox')
    const stale = await project(db, 'Forgotten brochure', new Date(Date.now() - 200 * DAY_MS))
    const dusty = await project(db, 'Dusty intranet', new Date(Date.now() - 70 * DAY_MS))
    const active = await project(db, 'Live shop', new Date(Date.now() - 2 * DAY_MS))
    await db.update(agents).set({ personality: 'A loud improviser who ships without reading the brief and never checks anything.', role: 'Freelancer' }).where(eq(agents.codename, drifter))
    return { stale, dusty, active }
  }

  it('the divergence audit flags the wrong price, the obsolete pattern and the dense table in one draft, not twice', async () => {
    const { db } = database()
    await plant(db)
    const env = { NIGHTLY_DIVERGENCE_RULES: rulesFile }
    const first = await run(['--live', '--only', 'divergence-audit'], env)
    expect(first.code, first.output).toBe(0)
    const audit = feature(first.output, 'divergence-audit')
    expect(audit.counts).toMatchObject({ notes: 5, canonical: 1, obsolete: 1, denseTables: 1, drafted: 1 })
    expect(audit.items.map(i => `${String(i.kind)} ${String(i.path)}`).sort()).toEqual(['canonical permanent/pricing.md', 'dense-table permanent/figures.md', 'obsolete permanent/runbook.md'])
    const [draft] = report(first.output).drafts
    expect(draft).toMatch(/^inbox\/nightly\/divergence-\d{4}-\d{2}-\d{2}\.md$/)
    const text = readFileSync(join(folders.vaultDir, draft!), 'utf8')
    expect(text).toContain('Starter plan: states 59, canonical 49 €')
    expect(text).toContain('would benefit from database storage')
    const second = await run(['--live', '--only', 'divergence-audit'], env)
    expect(feature(second.output, 'divergence-audit').counts).toMatchObject({ discrepancies: 3, alreadyDrafted: 1, drafted: 0 })
    expect(report(second.output).drafts).toEqual([])
    expect(readdirSync(join(folders.vaultDir, 'inbox', 'nightly'))).toHaveLength(1)
  }, 120_000)

  it('the divergence audit skips without a rules file and reports a malformed one as the feature\'s error', async () => {
    const { db } = database()
    await plant(db)
    const absent = await run(['--only', 'divergence-audit'], { NIGHTLY_DIVERGENCE_RULES: join(folders.vaultDir, 'nowhere.json') })
    expect(absent.code, absent.output).toBe(0)
    expect(feature(absent.output, 'divergence-audit').skipped).toMatch(/no rules file at .*nowhere\.json/)
    const broken = join(folders.vaultDir, 'rules', 'broken.json')
    writeFileSync(broken, JSON.stringify({ obsolete: [{ pattern: '(unclosed' }] }))
    const bad = await run(['--only', 'divergence-audit'], { NIGHTLY_DIVERGENCE_RULES: broken })
    expect(bad.code).toBe(1)
    expect(feature(bad.output, 'divergence-audit').error).toMatch(/broken\.json: obsolete pattern "\(unclosed" is not a regex/)
  }, 120_000)

  it('the obsolescence audit: stale projects get a verdict, the active one stays relevant, one row per date, never archived', async () => {
    const { db } = database()
    const { stale, dusty, active } = await plant(db)
    const first = await run(['--live', '--only', 'obsolescence-audit'])
    expect(first.code, first.output).toBe(0)
    const audit = feature(first.output, 'obsolescence-audit')
    expect(audit.counts).toMatchObject({
      projects: 3,
      inactive: 2,
      thresholdDays: 60,
      archiveRecommended: 1,
      possiblyObsolete: 1,
      logged: 2,
    })
    const verdict = (id: string) => audit.items.find(i => i.projectId === id)
    expect(verdict(stale)).toMatchObject({ verdict: 'archive_recommended', inactive: true })
    expect(verdict(dusty)).toMatchObject({ verdict: 'possibly_obsolete', inactive: true })
    expect(verdict(active)).toMatchObject({ verdict: 'still_relevant', inactive: false })
    await run(['--live', '--only', 'obsolescence-audit'])
    const log = await db.select().from(learnObsolescenceLog).orderBy(learnObsolescenceLog.verdict)
    expect(log.map(r => [r.projectId, r.verdict])).toEqual([[stale, 'archive_recommended'], [dusty, 'possibly_obsolete']])
    expect((await db.select({ status: workProjects.status }).from(workProjects)).map(p => p.status)).toEqual(['active', 'active', 'active'])
    const tighter = await run(['--live', '--only', 'obsolescence-audit'], { NIGHTLY_OBSOLESCENCE_DAYS: '1' })
    expect(feature(tighter.output, 'obsolescence-audit').counts).toMatchObject({ inactive: 3 })
    expect(await db.select().from(learnObsolescenceLog)).toHaveLength(3)
  }, 120_000)

  it('the morning mail carries the non-relevant verdicts and the top 3 drifted agents; persona drift only on the 1st', async () => {
    const { db } = database()
    await plant(db)
    const sent: Array<{ subject: string, text: string }> = []
    const sendToTeam = async (mail: { subject: string, text: string }) => (sent.push(mail), { sent: true })
    const ctx = (now: Date, dryRun = false) => ({ db, ai: model.facade(db), vaultDir: folders.vaultDir, now, dryRun, log: () => {} })
    const second = await runConsolidation(ctx(new Date('2026-03-02T04:00:00Z')), { only: 'persona-drift', sendToTeam })
    expect(second.features[0]!.skipped).toBe('not the 1st')
    expect(second.mail).toBeNull()
    expect(await db.select().from(learnPersonaDrift)).toHaveLength(0)
    const first = new Date('2026-03-01T04:00:00Z')
    const drift = (await runConsolidation(ctx(first), { only: 'persona-drift', sendToTeam })).features[0]!
    const score = (agent: string) => Number(drift.items.find(i => i.agent === agent)!.score)
    expect(score(drifter)).toBeGreaterThan(0.05)
    expect(score(steady)).toBe(0)
    expect(drift.items[0]).toMatchObject({ agent: drifter, top: true })
    expect(drift.items.filter(i => i.top)).toHaveLength(1)
    await runConsolidation(ctx(first), { only: 'persona-drift' })
    const history = await db.select().from(learnPersonaDrift).where(eq(learnPersonaDrift.month, '2026-03'))
    expect(history).toHaveLength(ROSTER.length)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.text).toContain(`- ${drifter}: `)
    expect(sent[0]!.text).toMatch(/personality/)
    await runConsolidation(ctx(new Date()), { only: 'obsolescence-audit', sendToTeam })
    expect(sent[1]!.text).toMatch(/Forgotten brochure \(.*\): archive_recommended/)
    expect(sent[1]!.text).toMatch(/Dusty intranet \(.*\): possibly_obsolete/)
    expect(sent[1]!.text).not.toContain('Live shop')
  }, 120_000)

  it('the dry-run of each audit writes nothing: every table and the vault unchanged, no model call', async () => {
    const { db } = database()
    await plant(db)
    const tables = await everyTableDigest(db)
    const vault = folderContents(folders.vaultDir)
    const env = { NIGHTLY_DIVERGENCE_RULES: rulesFile }
    for (const name of ['divergence-audit', 'obsolescence-audit', 'persona-drift']) {
      const dry = await run(['--only', name], env)
      expect(dry.code, dry.output).toBe(0)
      expect(report(dry.output).drafts).toEqual([])
    }
    const dry = await run([], env)
    expect(feature(dry.output, 'divergence-audit').counts).toMatchObject({ discrepancies: 3, drafted: 0 })
    expect(feature(dry.output, 'obsolescence-audit').counts).toMatchObject({ inactive: 2, logged: 0 })
    const onFirst = await runConsolidation({ db, ai: model.facade(db), vaultDir: folders.vaultDir, now: new Date('2026-04-01T04:00:00Z'), dryRun: true, log: () => {}, env }, { only: 'persona-drift' })
    expect(onFirst.features[0]!.counts).toMatchObject({ drifted: 1, recorded: 0 })
    expect(await everyTableDigest(db)).toEqual(tables)
    expect(folderContents(folders.vaultDir)).toEqual(vault)
    expect(model.requests()).toHaveLength(0)
  }, 240_000)
})
