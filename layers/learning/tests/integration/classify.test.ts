// The scar classifier against a scripted loopback model, on both databases: the qualification
// stored with the learnable verdict as the rationale's prefix (never in `learnable`), victories
// and qualified scars skipped, an answer outside the schema recorded as that scar's failure
// while the run goes on, a model that is down, --dry-run and --limit, and the scrubbing.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { aiConsumption } from '#db/schema/ai'
import { clients } from '#db/schema/clients'
import { learnLessons } from '#db/schema/learn'
import { CLASSIFY_MAX_ATTEMPTS, parseClassification, runClassifier } from '../../core/classify'
import { startScriptedModel, type ScriptedModel } from '../fakes/model'
import { CONTACT, clearLessons, lesson, seedWorld } from '../fixtures/world'

const verdict = (extra: Record<string, unknown> = {}) => ({ error_type: 'process', severity: 4, confidence: 0.8, learnable: true, rationale: 'A deploy order rule prevents it.', tags: ['deploy', 'migrations'], ...extra })

describeOnBothDatabases('learning scar classifier', (database) => {
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
  const row = async (id: number) => (await database().db.select().from(learnLessons).where(eq(learnLessons.id, id)))[0]!

  it('qualifies the uncategorised scars; learnable goes in the rationale\'s prefix, not in the column', async () => {
    const { db } = database()
    const scar = await lesson(db, { learnable: false })
    const victory = await lesson(db, { kind: 'success' })
    model.answer(verdict())
    const report = await runClassifier({ db, ai: model.facade(db) })
    expect(report).toMatchObject({ candidates: 1, classified: 1, failed: 0 })
    expect(await row(scar.id)).toMatchObject({
      errorType: 'process', severity: 4, classifierRationale: 'learnable:true A deploy order rule prevents it.', classifierTags: ['deploy', 'migrations'],
      learnable: false, classifierError: null, classifyAttempts: 1,
    })
    expect((await row(scar.id)).classifierConfidence).toBeCloseTo(0.8)
    expect((await row(victory.id)).errorType).toBeNull()
    // Already qualified: a second run has nothing to do.
    expect(await runClassifier({ db, ai: model.facade(db) })).toMatchObject({ candidates: 0 })
    expect(model.requests()).toHaveLength(1)
  })

  it('classifies a tenant\'s scar with that tenant\'s model (clients.config.ai), its ledger row carrying the tenant', async () => {
    const { db } = database()
    const [tenant] = await db.insert(clients).values({ slug: `scarred-${Date.now()}`, name: 'Scarred', config: { ai: { provider: 'mistral', model: 'mistral-medium-latest' } } }).returning()
    await lesson(db, { tenantId: tenant!.id })
    model.answer(verdict())
    const ai = model.facade(db)
    expect(await runClassifier({ db, ai })).toMatchObject({ classified: 1 })
    await ai.flush()
    expect(model.requests()[0]!.body).toMatchObject({ model: 'mistral-medium-latest' })
    const [row] = await db
      .select({ tenant: aiConsumption.tenant, model: aiConsumption.model })
      .from(aiConsumption)
      .where(eq(aiConsumption.tenant, tenant!.slug))
    expect(row).toEqual({ tenant: tenant!.slug, model: 'mistral-medium-latest' })
  })

  it('records an answer outside the schema as that scar\'s failure and goes on; gives up after the maximum of attempts', async () => {
    const { db } = database()
    const broken = await lesson(db)
    const fine = await lesson(db)
    model.answer('{"error_type": "process", oops', verdict({ learnable: false, rationale: 'learnable:true One-off.' }))
    const report = await runClassifier({ db, ai: model.facade(db) })
    expect(report).toMatchObject({ candidates: 2, classified: 1, failed: 1 })
    expect(await row(broken.id)).toMatchObject({ errorType: null, classifyAttempts: 1 })
    expect((await row(broken.id)).classifierError).toBeTruthy()
    // The model's own prefix is replaced by the verdict's.
    expect((await row(fine.id)).classifierRationale).toBe('learnable:false One-off.')
    for (const wrong of [verdict({ error_type: 'cosmic-rays' }), verdict({ severity: 9 })]) {
      model.answer(wrong)
      await runClassifier({ db, ai: model.facade(db) })
    }
    expect(await row(broken.id)).toMatchObject({ errorType: null, classifyAttempts: CLASSIFY_MAX_ATTEMPTS, classifierError: 'severity must be a whole number 1–5 (got 9)' })
    expect(await runClassifier({ db, ai: model.facade(db) })).toMatchObject({ candidates: 0 })
  })

  it('a model that is down fails each scar without stopping; --dry-run calls nothing; --limit caps', async () => {
    const { db } = database()
    const a = await lesson(db)
    await lesson(db)
    model.fail(30)
    const report = await runClassifier({ db, ai: model.facade(db) })
    expect(report).toMatchObject({ candidates: 2, classified: 0, failed: 2 })
    expect((await row(a.id)).classifierError).toMatch(/unavailable|http_500/)
    model.reset()
    const dry = await runClassifier({ db, ai: model.facade(db) }, { dryRun: true, limit: 1 })
    expect(dry).toMatchObject({ candidates: 1, classified: 0 })
    expect(model.requests()).toHaveLength(0)
    expect((await row(a.id)).classifyAttempts).toBe(1)
  })

  it('scrubs the scar before the model, and the model\'s echo before storing it', async () => {
    const { db } = database()
    const scar = await lesson(db, { description: `Claire Dubois (${CONTACT.email}) got the IBAN FR76 3000 6000 0112 3456 7890 189 by mail.` })
    model.answer(verdict({ rationale: `Sent to ${CONTACT.email} by mistake.` }))
    await runClassifier({ db, ai: model.facade(db) })
    expect(model.prompts()[0]).not.toMatch(/Claire|Dubois|acme-client|FR76/)
    expect((await row(scar.id)).classifierRationale).toBe('learnable:true Sent to [EMAIL] by mistake.')
  })
})

it('parses only the documented shape', () => {
  expect(() => parseClassification({ ...verdict(), tags: ['a b'] })).toThrow(/tags/)
  expect(() => parseClassification({ ...verdict(), learnable: 'yes' })).toThrow(/learnable/)
  expect(() => parseClassification({ ...verdict(), confidence: 2 })).toThrow(/confidence/)
  expect(parseClassification(verdict({ error_type: 'Security', tags: ['Auth', 'auth'] }))).toMatchObject({ errorType: 'security', tags: ['auth'], rationale: 'learnable:true A deploy order rule prevents it.' })
})
