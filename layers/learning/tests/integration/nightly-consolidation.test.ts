// The nightly consolidation run as a real automate (automates/run.ts) on both databases, with
// the scripted loopback model and planted data: a repeated scar makes one promotion draft and
// not a second one the next night; a transcript with a planted secret is skipped (never sent
// to the model); the forgetting curve archives exactly the eligible scars and an un-archive
// brings one back into recall; the cost ticket fires at +21 % and not at +19 %; the morning
// summary goes to the team only when the night produced something; the default
// dry-run writes nothing (every table and the vault folder compared before/after).
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import type { Db } from '#db/client'
import { aiConsumption } from '#db/schema/ai'
import { learnLessons, learnNightlyMarks } from '#db/schema/learn'
import { memEmbeddings, MEM_EMBEDDING_DIMENSIONS } from '#db/schema/mem'
import { opsAlerts } from '#db/schema/ops'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest, folderContents } from '#tests/helpers/table-digest'
import { recall } from '#layers/memory/core/recall/engine'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { runConsolidation } from '../../core/nightly/consolidation'
import { unarchiveLesson, UnarchiveError } from '../../core/nightly/forgetting-curve'
import { startScriptedModel, type ScriptedModel } from '../fakes/model'
import { spawnOn } from '../fixtures/spawns'
import { clearLessons, lesson, seedWorld, tempFolders } from '../fixtures/world'

const DAY_MS = 86_400_000
const SECRET = 'sk-ant-api03-PLANTEDsecretTOKEN0123456789abcdef'

/** A unit-ish vector: `axis` plus a small `tilt` on another axis (similar axes → cosine ≈ 0.99). */
function vector(axis: number, tilt = 0): number[] {
  const v = Array.from({ length: MEM_EMBEDDING_DIMENSIONS }, () => 0)
  v[axis] = 1
  if (tilt) v[(axis + 1 + tilt) % MEM_EMBEDDING_DIMENSIONS] = 0.1
  return v
}

async function embedScar(db: Db, id: number, title: string, embedding: number[]): Promise<void> {
  await db.insert(memEmbeddings).values({ sourceType: 'scar', sourceId: String(id), title, content: title, fingerprint: 'a'.repeat(64), provider: 'test', model: 'planted', embedding })
}

async function cost(db: Db, actor: string, at: Date, usd: number): Promise<void> {
  await db.insert(aiConsumption).values({ callId: randomUUID(), at, kind: 'completion', provider: 'mistral', model: 'm', modelRequested: 'm', feature: 'test', actor, outcome: 'ok', costUsd: usd, durationMs: 1 })
}

describeOnBothDatabases('nightly consolidation', (database) => {
  let model: ScriptedModel
  const folders = tempFolders()
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
    await clearLessons(db)
    await db.execute(sql`truncate mem_embeddings, learn_nightly_marks, ai_consumption, ops_alerts, atlas_spawn_events_base, atlas_spawns cascade`)
    await db.execute(sql`delete from atlas_messages`)
  })
  const run = (args: string[]) => runTs('automates/run.ts', ['nightly-consolidation', '--json', ...args], {
    env: { DATABASE_URL: database().url, VAULT_DIR: folders.vaultDir, ...model.env },
  })
  const report = (output: string) => JSON.parse(output.split('\n').find(line => line.startsWith('{"at"'))!) as { dryRun: boolean, drafts: string[], features: Array<{ feature: string, counts: Record<string, number>, items: Array<Record<string, unknown>>, error?: string }> }
  const feature = (output: string, name: string) => report(output).features.find(f => f.feature === name)!

  /** One of each: a repeated scar, two transcripts (one with a secret), old scars, a cost spike. */
  async function plantNight(db: Db) {
    const old = await lesson(db, { title: 'Deploy ran before the migrations', createdAt: new Date(Date.now() - 40 * DAY_MS) })
    const again = await lesson(db, { title: 'Deploy again ran before the migrations' })
    const other = await lesson(db, { title: 'An unrelated typo in the footer' })
    await embedScar(db, old.id, old.title, vector(0))
    await embedScar(db, again.id, again.title, vector(0, 3))
    await embedScar(db, other.id, other.title, vector(500))
    const clean = await spawnOn(db, { events: [{ type: 'assistant', text: 'Delivered the quote export for Acme.' }] })
    const leaky = await spawnOn(db, { events: [{ type: 'assistant', text: `Configured the client with api_key=${SECRET}` }] })
    const forgotten = await lesson(db, { title: 'Ancient scar nobody recalls', createdAt: new Date(Date.now() - 400 * DAY_MS) })
    await db.insert(memEmbeddings).values({ sourceType: 'scar', sourceId: String(forgotten.id), title: forgotten.title, content: 'Ancient zanzibar scar nobody recalls', fingerprint: 'b'.repeat(64), provider: 'test', model: 'planted', embedding: vector(900) })
    const recalled = await lesson(db, { title: 'Ancient but recalled', createdAt: new Date(Date.now() - 400 * DAY_MS), recallCount: 2, lastRecalledAt: new Date() })
    const victory = await lesson(db, { kind: 'success', title: 'Ancient victory', createdAt: new Date(Date.now() - 400 * DAY_MS) })
    const yesterdayNoon = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2)
    for (let d = 1; d <= 7; d++) {
      await cost(db, 'dev', new Date(yesterdayNoon.getTime() - d * DAY_MS), 1)
      await cost(db, 'commercial', new Date(yesterdayNoon.getTime() - d * DAY_MS), 1)
    }
    await cost(db, 'dev', yesterdayNoon, 1.21)
    await cost(db, 'commercial', yesterdayNoon, 1.19)
    return { old, again, other, clean, leaky, forgotten, recalled, victory }
  }

  it('the default dry-run reads and reports, and writes nothing: every table and the vault folder unchanged, no model call', async () => {
    const { db } = database()
    const planted = await plantNight(db)
    const tables = await everyTableDigest(db)
    const vault = folderContents(folders.vaultDir)
    const dry = await run([])
    expect(dry.code, dry.output).toBe(0)
    const out = report(dry.output)
    expect(out.dryRun).toBe(true)
    expect(out.drafts).toEqual([])
    expect(feature(dry.output, 'repeated-scars').counts).toMatchObject({ clusters: 1, wouldDraft: 1, drafted: 0 })
    expect(feature(dry.output, 'session-compaction').counts).toMatchObject({ transcripts: 2, skippedSecret: 1, compacted: 0 })
    expect(feature(dry.output, 'forgetting-curve').items).toEqual([{ lessonId: planted.forgotten.id }])
    expect(feature(dry.output, 'cost-ticket').counts).toMatchObject({ alerts: 1 })
    expect(await everyTableDigest(db)).toEqual(tables)
    expect(folderContents(folders.vaultDir)).toEqual(vault)
    expect(model.requests()).toHaveLength(0)
  }, 120_000)

  it('live: a repeated scar gives one promotion draft, not a second one the next night; nothing promoted', async () => {
    const { db } = database()
    const { old, again } = await plantNight(db)
    const first = await run(['--live', '--only', 'repeated-scars'])
    expect(first.code, first.output).toBe(0)
    const scars = feature(first.output, 'repeated-scars')
    expect(scars.counts).toMatchObject({ clusters: 1, drafted: 1 })
    expect(scars.items[0]).toMatchObject({ lessonIds: [old.id, again.id] })
    const draft = report(first.output).drafts[0]!
    expect(draft).toMatch(/^inbox\/nightly\/repeated-scar-\d+\.md$/)
    expect(readFileSync(join(folders.vaultDir, draft), 'utf8')).toContain('Deploy again ran before the migrations')
    expect(await db.select().from(learnNightlyMarks)).toHaveLength(1)
    const second = await run(['--live', '--only', 'repeated-scars'])
    expect(feature(second.output, 'repeated-scars').counts).toMatchObject({ clusters: 1, alreadyDrafted: 1, drafted: 0 })
    expect(readdirSync(join(folders.vaultDir, 'inbox', 'nightly'))).toHaveLength(1)
    expect(existsSync(join(folders.vaultDir, 'permanent', 'nightly'))).toBe(false)
  }, 120_000)

  it('live: the transcript with a planted secret is skipped, the others compacted into the day\'s journal', async () => {
    const { db } = database()
    const { clean, leaky } = await plantNight(db)
    model.answer({ facts: [{ kind: 'delivery', text: 'The quote export shipped for Acme.' }, { kind: 'decision', text: 'Exports are CSV.' }, { kind: 'finding', text: 'Acme reads quotes on mobile.' }] })
    const live = await run(['--live', '--only', 'session-compaction'])
    expect(live.code, live.output).toBe(0)
    const compaction = feature(live.output, 'session-compaction')
    expect(compaction.counts).toMatchObject({ transcripts: 2, skippedSecret: 1, compacted: 1, facts: 3 })
    expect(compaction.items).toContainEqual({ spawnId: leaky, skipped: 'secret' })
    expect(model.prompts()).toHaveLength(1)
    expect(model.prompts()[0]).toContain(clean)
    expect(model.prompts()[0]).not.toContain(leaky)
    expect(model.prompts()[0]).not.toContain('PLANTEDsecret')
    const journal = readFileSync(join(folders.vaultDir, report(live.output).drafts[0]!), 'utf8')
    expect(journal).toContain('**delivery**: The quote export shipped for Acme.')
  }, 120_000)

  it('the forgetting curve archives exactly the eligible scars; an un-archive brings one back into recall', async () => {
    const { db } = database()
    const { forgotten, recalled, victory, old } = await plantNight(db)
    const query = { query: 'zanzibar', mode: 'lex' as const, k: 5, readOnly: true }
    expect((await recall({ db, embedder: offlineEmbedder(db) }, query)).hits.map(h => h.sourceId)).toContain(String(forgotten.id))
    const live = await run(['--live', '--only', 'forgetting-curve'])
    expect(live.code, live.output).toBe(0)
    expect(feature(live.output, 'forgetting-curve').counts).toMatchObject({ eligible: 1, archived: 1 })
    const archived = await db.select({ id: learnLessons.id }).from(learnLessons).where(sql`archived_at is not null`)
    expect(archived.map(r => r.id)).toEqual([forgotten.id])
    for (const kept of [recalled, victory, old])
      expect((await db.select().from(learnLessons).where(eq(learnLessons.id, kept.id)))[0]!.archivedAt).toBeNull()
    expect((await recall({ db, embedder: offlineEmbedder(db) }, query)).hits.map(h => h.sourceId)).not.toContain(String(forgotten.id))
    expect(await unarchiveLesson(db, forgotten.id)).toEqual({ id: forgotten.id, archivedAt: null })
    expect((await recall({ db, embedder: offlineEmbedder(db) }, query)).hits.map(h => h.sourceId)).toContain(String(forgotten.id))
    await expect(unarchiveLesson(db, forgotten.id)).rejects.toBeInstanceOf(UnarchiveError)
    await expect(unarchiveLesson(db, 99_999_999)).rejects.toMatchObject({ code: 'not_found' })
  }, 120_000)

  it('the cost ticket alerts an agent at +21 % over its 7-day average, not one at +19 %', async () => {
    const { db } = database()
    await plantNight(db)
    const live = await run(['--live', '--only', 'cost-ticket'])
    expect(live.code, live.output).toBe(0)
    const lines = feature(live.output, 'cost-ticket').items
    expect(lines.find(l => l.agent === 'dev')).toMatchObject({ alert: true })
    expect(lines.find(l => l.agent === 'commercial')).toMatchObject({ alert: false })
    const alerts = await db.select().from(opsAlerts)
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({ kind: 'ai_cost_spike', subject: 'dev', resolvedAt: null })
    expect(alerts[0]!.message).toMatch(/\+21 %/)
  }, 120_000)

  it('refuses an unknown feature and contradictory flags with a non-zero exit', async () => {
    const bad = await run(['--only', 'astrology'])
    expect(bad.code).not.toBe(0)
    expect(bad.output).toMatch(/--only must be one of/)
  }, 60_000)

  it('the morning summary goes to the team only when the night produced drafts or alerts, never in a dry-run', async () => {
    const { db } = database()
    const sent: Array<{ subject: string, text: string }> = []
    const sendToTeam = async (mail: { subject: string, text: string }) => (sent.push(mail), { sent: true })
    const ctx = (dryRun: boolean) => ({ db, ai: model.facade(db), vaultDir: folders.vaultDir, now: new Date(), dryRun, log: () => {} })
    expect((await runConsolidation(ctx(false), { only: 'cost-ticket', sendToTeam })).mail).toBeNull()
    await plantNight(db)
    expect((await runConsolidation(ctx(true), { sendToTeam })).mail).toBeNull()
    expect(sent).toEqual([])
    const live = await runConsolidation(ctx(false), { only: 'repeated-scars', sendToTeam })
    expect(live.mail).toMatchObject({ sent: true })
    expect(sent).toHaveLength(1)
    expect(sent[0]!.text).toContain(live.drafts[0]!)
    await runConsolidation(ctx(false), { only: 'cost-ticket', sendToTeam })
    expect(sent[1]!.text).toMatch(/dev: \$1\.21 \(average \$1\.00\)/)
  }, 60_000)
})
