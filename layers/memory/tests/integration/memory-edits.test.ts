// The memory a person edits from the hub (issue 15): the reflex index saved whole (a line
// over 200 characters refuses the save, naming it, and nothing is written), the user model's
// dimensions (audited by keys, the private one hidden unless allowed), each tenant's mission
// brief, and a scar or victory recorded by hand — audited and recallable at once.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { hubAudit } from '#db/schema/hub'
import { clients } from '#db/schema/clients'
import { learnLessons } from '#db/schema/learn'
import { memEmbeddings } from '#db/schema/mem'
import { readReflexIndex, REFLEX_INDEX_FILE } from '../../core/reflex'
import { readReflexSource, REFLEX_SAVED_ACTION, ReflexEditError, saveReflexIndex } from '../../core/reflex-editor'
import { listProfiles, saveDimension, USER_MODEL_SAVED_ACTION } from '../../core/user-model-editor'
import { listMissionBriefs, MissionBriefError, saveMissionBrief } from '../../core/mission-briefs'
import { LESSON_RECORDED_ACTION, recordManualLesson } from '../../core/lessons-manual'
import { recall } from '../../core/recall/engine'
import { getProfile } from '../../core/user-model/profile'
import { offlineEmbedder, rateLimited } from '../fixtures/embedders'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

describeOnBothDatabases('the memory a person edits', (database) => {
  let folders: MemoryFolders
  beforeAll(() => {
    folders = memoryFolders()
  })
  afterAll(() => folders.remove())

  it('refuses a 201-character reflex line with its number and writes nothing', async () => {
    const { db } = database()
    mkdirSync(folders.reflexDir, { recursive: true })
    writeFileSync(join(folders.reflexDir, REFLEX_INDEX_FILE), '# Reflexes\nKeep it short.\n')
    const before = readReflexSource(folders.reflexDir)
    const text = `# Reflexes\nKeep it short.\n${'x'.repeat(200)}\n${'y'.repeat(201)}\n`
    const refusal = await saveReflexIndex({ db, reflexDir: folders.reflexDir }, { text, actor: 'op@studio.test' }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(ReflexEditError)
    expect(refusal).toMatchObject({ code: 'reflex_line_too_long', details: { line: 4, length: 201 } })
    expect((refusal as Error).message).toMatch(/^line 4 is 201 characters long/)
    expect(readReflexSource(folders.reflexDir)).toEqual(before)
    expect(await db.select().from(hubAudit).where(eq(hubAudit.action, REFLEX_SAVED_ACTION))).toEqual([])
    // 200 characters (counted as characters, not bytes) is fine.
    const saved = await saveReflexIndex({ db, reflexDir: folders.reflexDir }, { text: `# Reflexes\r\nKeep it short.\r\n${'é'.repeat(200)}\r\n\r\n`, actor: 'op@studio.test', expectedSha256: before.sha256 })
    // Unix line ends, and one final newline (trailing blank lines dropped).
    expect(saved).toMatchObject({ entries: 2, lines: 3 })
    expect(readFileSync(join(folders.reflexDir, REFLEX_INDEX_FILE), 'utf8')).toBe(`# Reflexes\nKeep it short.\n${'é'.repeat(200)}\n`)
    expect(readReflexIndex(folders.reflexDir).entries.map(e => e.line)).toEqual([2, 3])
    const [audit] = await db.select().from(hubAudit).where(eq(hubAudit.action, REFLEX_SAVED_ACTION))
    expect(audit).toMatchObject({ actor: 'op@studio.test', target: REFLEX_INDEX_FILE, details: { before: before.sha256, after: saved.sha256, entries: 2 } })
    // A save based on the older copy is refused: someone saved meanwhile.
    await expect(saveReflexIndex({ db, reflexDir: folders.reflexDir }, { text: 'Lost edit\n', actor: 'other@studio.test', expectedSha256: before.sha256 }))
      .rejects.toMatchObject({ code: 'reflex_changed_meanwhile' })
    expect(readFileSync(join(folders.reflexDir, REFLEX_INDEX_FILE), 'utf8')).not.toContain('Lost edit')
  })

  it('saves a user model dimension, audits its keys only, and hides the private one unless allowed', async () => {
    const { db } = database()
    const subject = `founder-${randomUUID().slice(0, 6)}@studio.test`
    await saveDimension(db, { subject, dimension: 'communication_style', value: { tone: 'direct', language: 'fr' }, actor: 'founder@studio.test' })
    await saveDimension(db, { subject, dimension: 'private', value: { health: 'not for agents' }, actor: 'founder@studio.test' })
    const hidden = (await listProfiles(db, { allowPrivate: false })).find(p => p.subject === subject)!
    expect(hidden.dimensions).toMatchObject({ communication_style: { tone: 'direct', language: 'fr' } })
    expect(hidden.dimensions).not.toHaveProperty('private')
    expect((await listProfiles(db, { allowPrivate: true })).find(p => p.subject === subject)!.dimensions.private).toEqual({ health: 'not for agents' })
    expect((await getProfile(db, { subject, slice: 'core' })).profile).toEqual({ communication_style: { tone: 'direct', language: 'fr' } })
    const audits = await db.select().from(hubAudit).where(and(eq(hubAudit.action, USER_MODEL_SAVED_ACTION), eq(hubAudit.target, `mem_user_model:${subject}`)))
    expect(audits.map(a => a.details)).toEqual([{ dimension: 'communication_style', keys: ['tone', 'language'] }, { dimension: 'private', keys: ['health'] }])
    expect(JSON.stringify(audits)).not.toContain('not for agents')
    await expect(saveDimension(db, { subject, dimension: 'skills', value: { blob: 'x'.repeat(30_000) }, actor: 'founder@studio.test' })).rejects.toMatchObject({ code: 'dimension_too_large' })
  })

  it('writes, keeps and removes a tenant\'s mission brief without touching its other settings', async () => {
    const { db } = database()
    const slug = `acme-${randomUUID().slice(0, 6)}`
    await db.insert(clients).values({ slug, name: 'Acme', config: { preprodUrl: 'https://preprod.acme.example' } })
    const saved = await saveMissionBrief(db, { slug, brief: '  Acme sells bikes; the shop runs on Nuxt.\r\nNever touch payments.  ', actor: 'op@studio.test' })
    expect(saved.brief).toBe('Acme sells bikes; the shop runs on Nuxt.\nNever touch payments.')
    const [row] = await db.select().from(clients).where(eq(clients.slug, slug))
    expect(row!.config).toEqual({ preprodUrl: 'https://preprod.acme.example', missionBrief: 'Acme sells bikes; the shop runs on Nuxt.\nNever touch payments.' })
    expect((await listMissionBriefs(db)).find(t => t.slug === slug)?.brief).toBe(saved.brief)
    await saveMissionBrief(db, { slug, brief: '   ', actor: 'op@studio.test' })
    expect((await db.select().from(clients).where(eq(clients.slug, slug)))[0]!.config).toEqual({ preprodUrl: 'https://preprod.acme.example' })
    await expect(saveMissionBrief(db, { slug: 'nobody-here', brief: 'x', actor: 'op@studio.test' })).rejects.toBeInstanceOf(MissionBriefError)
    expect((await db.select().from(hubAudit).where(eq(hubAudit.target, `client:${slug}`))).map(a => a.details)).toEqual([{ characters: saved.brief!.length }, { characters: 0, removed: true }])
  })

  it('records a scar by hand: audited, tagged with where it came from, and recallable at once', async () => {
    const { db } = database()
    const embedder = offlineEmbedder(db)
    const result = await recordManualLesson({ db, embedder }, {
      kind: 'scar', title: 'Webhook signature ignored on the staging shop', description: 'The Stripe webhook accepted unsigned payloads on staging; a replay created orders.',
      checkAdded: 'Verify the signature before parsing.', tags: ['Stripe', 'webhook'], tenantSlug: 'acme', messageId: 42, actor: 'op@studio.test',
    })
    expect(result.lesson).toMatchObject({ kind: 'failure', agent: null, tags: ['stripe', 'webhook', 'recorded-by-hand', 'tenant:acme', 'message:42'] })
    expect(result.index).toMatchObject({ status: 'indexed', sourceType: 'scar', sourceId: String(result.lesson.id) })
    const [indexed] = await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'scar'), eq(memEmbeddings.sourceId, String(result.lesson.id))))
    expect(indexed?.content).toContain('Verify the signature')
    const found = await recall({ db, embedder }, { query: 'webhook signature staging', k: 5, mode: 'hybrid', scope: ['scar'], readOnly: true })
    expect(found.hits.map(h => h.sourceId)).toContain(String(result.lesson.id))
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, LESSON_RECORDED_ACTION), eq(hubAudit.target, `learn_lesson:${result.lesson.id}`)))
    expect(audit).toMatchObject({ actor: 'op@studio.test', details: { kind: 'scar', tenant: 'acme', messageId: 42 } })

    const victory = await recordManualLesson({ db, embedder }, { kind: 'victory', title: 'Cache purge after deploy', description: 'Purging the CDN right after the deploy fixed the stale pages for good.', actor: 'op@studio.test' })
    expect(victory.lesson.kind).toBe('success')
    expect(victory.index.sourceType).toBe('victory')
  })

  it('refuses an unknown agent, and keeps a lesson whose indexing the model refused for the next sync', async () => {
    const { db } = database()
    const count = async () => (await db.select().from(learnLessons)).length
    const before = await count()
    await expect(recordManualLesson({ db, embedder: offlineEmbedder(db) }, { kind: 'scar', title: 'x title', description: 'something went wrong', agent: 'no-such-agent', actor: 'op@studio.test' }))
      .rejects.toMatchObject({ code: 'unknown_agent' })
    expect(await count()).toBe(before)
    const down = await recordManualLesson({ db, embedder: rateLimited(offlineEmbedder(db)) }, { kind: 'scar', title: 'Provider down', description: 'Recorded while the embedding provider was rate-limited.', actor: 'op@studio.test' })
    expect(down.index.status).toBe('deferred')
    expect(await count()).toBe(before + 1)
  })
})
