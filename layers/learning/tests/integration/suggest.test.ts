// The suggestion engine against a scripted loopback model, on both databases: selection
// (learnable, not yet proposed, by importance then date, at most 50), personal data scrubbed
// before the model and again on its answer, inserted pending and idempotent; an invalid JSON
// answer, an unknown destination and a model that is down leave the lesson for the next run.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnSuggestions } from '#db/schema/learn'
import { callDelayMs, parseSuggestion, runSuggestions, SUGGEST_DELAY_MS, SuggestionAnswerError } from '../../core/suggest'
import { startScriptedModel, type ScriptedModel } from '../fakes/model'
import { CONTACT, clearLessons, lesson, seedWorld } from '../fixtures/world'

const answer = (destination: string, extra: Record<string, unknown> = {}) => ({ destination, suggestion: 'Run the migrations before the deploy.', diff_before: '', diff_after: 'Migrations before deploy, always.', ...extra })

describeOnBothDatabases('learning suggestion engine', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
    await seedWorld(database().db)
  })
  afterAll(async () => model.close())
  beforeEach(async () => {
    model.reset()
    await clearLessons(database().db)
  })

  it('proposes for learnable lessons only, most important first, inserted pending, and a re-run adds nothing', async () => {
    const { db } = database()
    const low = await lesson(db, { importance: 2 })
    const high = await lesson(db, { importance: 9, agent: 'backend' })
    await lesson(db, { learnable: false, importance: 10 })
    await lesson(db, { importance: 10, archivedAt: new Date() })
    model.answer(answer('reflex'), answer('directive'))
    const ai = model.facade(db)
    const report = await runSuggestions({ db, ai }, { delayMs: 0 })
    expect(report).toMatchObject({ candidates: 2, inserted: 2, failed: 0 })
    expect(report.outcomes.map(o => o.lessonId)).toEqual([high.id, low.id])
    const rows = await db.select().from(learnSuggestions)
    expect(rows.find(r => r.lessonId === high.id)).toMatchObject({ destination: 'reflex', status: 'pending', agent: 'backend', provider: 'mistral', diffAfter: 'Migrations before deploy, always.', decidedAt: null })
    expect(rows.find(r => r.lessonId === low.id)).toMatchObject({ destination: 'directive', status: 'pending' })
    const again = await runSuggestions({ db, ai }, { delayMs: 0 })
    expect(again).toMatchObject({ candidates: 0, inserted: 0 })
    expect(model.requests()).toHaveLength(2)
    expect(await db.select().from(learnSuggestions)).toHaveLength(2)
  })

  it('scrubs personal data before the model sees the lesson, and scrubs the model\'s echo before inserting it', async () => {
    const { db } = database()
    const scar = await lesson(db, {
      title: 'Claire Dubois was sent the preprod password',
      description: `Mail to ${CONTACT.email}, phone 06 12 34 56 78, server 51.15.22.100, token sk-ant-api03-abcdefghijklmnopqrstuvwx.`,
    })
    model.answer(answer('inbox', { suggestion: `Never mail ${CONTACT.email} or call +33 6 12 34 56 78 (Claire Dubois).`, diff_after: 'Secrets go through the vault, never to Claire Dubois at claire.dubois@acme-client.fr.' }))
    const report = await runSuggestions({ db, ai: model.facade(db) }, { delayMs: 0 })
    expect(report.inserted).toBe(1)
    const prompt = model.prompts()[0]!
    for (const secret of ['Claire', 'Dubois', CONTACT.email, '06 12 34 56 78', '51.15.22.100', 'sk-ant-api03']) expect(prompt).not.toContain(secret)
    expect(prompt).toContain('[EMAIL]')
    expect(prompt).toContain('[PERSON] was sent the preprod password')
    const [row] = await db.select().from(learnSuggestions).where(eq(learnSuggestions.lessonId, scar.id))
    expect(row!.suggestion).toBe('Never mail [EMAIL] or call [PHONE] ([PERSON]).')
    expect(row!.diffAfter).toBe('Secrets go through the vault, never to [PERSON] at [EMAIL].')
    expect(report.scrubbedIn).toBeGreaterThanOrEqual(5)
    expect(report.scrubbedOut).toBe(5)
  })

  it('records invalid JSON, an unknown destination and a model that is down as failures, goes on, and retries them next run', async () => {
    const { db } = database()
    const bad = await lesson(db, { importance: 9 })
    const unknown = await lesson(db, { importance: 8 })
    const good = await lesson(db, { importance: 7 })
    model.answer('this is { not json', answer('slack-channel'), answer('skill'))
    const report = await runSuggestions({ db, ai: model.facade(db) }, { delayMs: 0 })
    expect(report).toMatchObject({ candidates: 3, inserted: 1, failed: 2 })
    expect(report.outcomes.find(o => o.lessonId === bad.id)).toMatchObject({ status: 'failed' })
    expect(report.outcomes.find(o => o.lessonId === unknown.id)).toMatchObject({ status: 'failed', error: 'unknown destination "slack-channel"' })
    expect(report.outcomes.find(o => o.lessonId === good.id)).toMatchObject({ status: 'inserted', destination: 'skill' })

    model.reset()
    model.fail(20)
    const down = await runSuggestions({ db, ai: model.facade(db) }, { delayMs: 0 })
    expect(down).toMatchObject({ candidates: 2, inserted: 0, failed: 2 })
    expect(down.outcomes[0]!.error).toMatch(/unavailable|http_500/)
    expect(await db.select().from(learnSuggestions)).toHaveLength(1)

    model.reset()
    const recovered = await runSuggestions({ db, ai: model.facade(db) }, { delayMs: 0 })
    expect(recovered).toMatchObject({ candidates: 2, inserted: 2 })
  })

  it('--dry-run calls no model and writes nothing; the limit caps the batch at 50', async () => {
    const { db } = database()
    for (let i = 0; i < 3; i++) await lesson(db)
    const dry = await runSuggestions({ db, ai: model.facade(db) }, { dryRun: true, limit: 2 })
    expect(dry).toMatchObject({ candidates: 2, inserted: 0 })
    expect(model.requests()).toHaveLength(0)
    expect(await db.select().from(learnSuggestions)).toHaveLength(0)
    const capped = await runSuggestions({ db, ai: model.facade(db) }, { dryRun: true, limit: 500 })
    expect(capped.candidates).toBe(3)
  })

  it('waits between calls, except for loopback providers', async () => {
    const { db } = database()
    await lesson(db)
    await lesson(db)
    const waits: number[] = []
    await runSuggestions({ db, ai: model.facade(db) }, { delayMs: 250, sleep: async ms => void waits.push(ms) })
    expect(waits).toEqual([250])
    expect(callDelayMs(model.env)).toBe(0)
    expect(callDelayMs({ MISTRAL_BASE_URL: 'https://api.mistral.ai/v1' })).toBe(SUGGEST_DELAY_MS)
    expect(callDelayMs({})).toBe(SUGGEST_DELAY_MS)
  })
})

it('refuses answers outside the schema by name', () => {
  expect(() => parseSuggestion([])).toThrow(SuggestionAnswerError)
  expect(() => parseSuggestion({ destination: 'reflex', suggestion: 'x' })).toThrow('diff_after is missing')
  expect(() => parseSuggestion({ destination: 'reflex', suggestion: 'x', diff_after: 'a\nb' })).toThrow(/one line/)
  expect(() => parseSuggestion({ destination: 'reflex', suggestion: 'x', diff_after: 'y'.repeat(201) })).toThrow(/200/)
  expect(parseSuggestion({ destination: ' Skill ', suggestion: ' s ', diff_after: 'after' })).toEqual({ destination: 'skill', suggestion: 's', diffBefore: '', diffAfter: 'after' })
})
