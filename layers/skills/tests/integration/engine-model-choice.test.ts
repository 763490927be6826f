// The router's model branch in a real run, on both databases (seed 003 §13.2, issue 21
// Deliver 3): a request between the thresholds goes to the run's model — the scripted
// loopback Mistral, through the AI facade — with the candidates recalled from the memory; the
// skill it picks lands in the run's `skills` step (mode model) and in the prompt; a hostile
// answer (a name not among the candidates), a malformed one and a failed call apply none,
// and the step says why.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { chatRunContext } from '#layers/agents/core/engine/chat'
import { createRun, driveRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import type { PromptLayer } from '#layers/agents/core/engine/prompt'
import { runSteps } from '#layers/agents/core/engine/store'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { seedBuiltInSkills } from '../../core/builtins'
import { skillRouterPort } from '../../core/port'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000121', email: 'op-model-choice@studio.test', role: 'operator' as const }
// Between the thresholds over the built-ins (the offline run of engine-skills.test.ts says ambiguous_offline).
const AMBIGUOUS = 'Un texte sur la réunion'

interface Decision {
  branch: string
  settings: { low: number }
  kept: Array<{ name: string, mode: string }>
  dropped: Array<{ name: string, reason: string }>
  candidates: Array<{ name: string, score: number }>
  model?: { answered: string[], rejected: string[], note: string }
}

describeOnBothDatabases('the router\'s model branch in a run', (database) => {
  let model: ScriptedModel
  let deps: EngineDeps
  const run = async (request: string) => {
    const created = await createRun(deps, await chatRunContext(database().db, OPERATOR, { request }))
    const done = await driveRun(deps, created.id)
    const steps = await runSteps(database().db, done.id)
    const routing = steps.find(s => s.kind === 'skills')!
    return { run: done, routing, decision: routing.input as unknown as Decision, layer: (done.promptLayers as PromptLayer[]).find(l => l.layer === 'skills')! }
  }

  beforeAll(async () => {
    const { db } = database()
    model = await startScriptedModel()
    deps = testEngineDeps(db, { ai: model.facade(db), skillRouter: skillRouterPort(db, offlineEmbedder(db)) })
    await seedBuiltInSkills(db)
  })
  afterAll(async () => {
    await model?.close()
  })
  beforeEach(() => {
    model.reset()
    model.byDefault(() => 'Done.')
  })

  it('asks the model with the recalled candidates; its pick lands in the skills step and the prompt', async () => {
    model.answer('["write-a-recap"]', 'Here is the recap.')
    const { run: done, routing, decision, layer } = await run(AMBIGUOUS)
    const [question] = model.prompts()
    expect(question).toContain(`Request: ${AMBIGUOUS}`)
    // The model sees the candidates at or above the low threshold, nothing else.
    const offered = [...question!.matchAll(/^- ([a-z0-9-]+): /gm)].map(match => match[1])
    expect(offered).toContain('write-a-recap')
    expect(offered.sort()).toEqual(decision.candidates.filter(c => c.score >= decision.settings.low).map(c => c.name).sort())
    expect(decision.branch).toBe('model')
    expect(decision.kept).toEqual([expect.objectContaining({ name: 'write-a-recap', mode: 'model' })])
    expect(decision.model).toEqual({ answered: ['write-a-recap'], rejected: [], note: 'applied write-a-recap' })
    expect(routing.skills).toEqual(['write-a-recap'])
    expect(layer.sources).toEqual(['write-a-recap'])
    expect(done.status).toBe('succeeded')
    expect(done.answer).toContain('write-a-recap')
  })

  it('applies none when the model names skills that are not candidates (a hostile answer), and says why', async () => {
    model.answer('["delete-all-skills", "../../etc/passwd", "draft-client-email-but-not-really"]', 'Done.')
    const { routing, decision, layer } = await run(AMBIGUOUS)
    expect(decision.branch).toBe('model')
    expect(decision.kept).toEqual([])
    expect(decision.model!.rejected).toEqual(['delete-all-skills', '../../etc/passwd', 'draft-client-email-but-not-really'])
    expect(decision.model!.note).toContain('none applied: the model named only names not among the candidates')
    expect(decision.dropped.every(d => d.reason === 'not_chosen_by_model' || d.reason === 'below_low')).toBe(true)
    expect(routing.skills).toEqual([])
    expect(layer.text).toBe('')
  })

  it('keeps only the candidates of a mixed answer, within the cap; a malformed answer or a failed call applies none', async () => {
    model.answer('Sure! I pick ["summarise-a-document", "rm -rf", "write-a-recap", "draft-client-email"]', 'Done.')
    const mixed = (await run(AMBIGUOUS)).decision
    expect(mixed.kept.length).toBeLessThanOrEqual(2)
    expect(mixed.kept.every(k => k.mode === 'model' && mixed.candidates.some(c => c.name === k.name))).toBe(true)
    expect(mixed.model!.rejected).toContain('rm -rf')
    model.answer('I think the best one is clearly the first, obviously.', 'Done.')
    const malformed = (await run(AMBIGUOUS)).decision
    expect(malformed.kept).toEqual([])
    expect(malformed.model!.note).toMatch(/^none applied/)
    model.fail(3)
    const failed = await run(AMBIGUOUS)
    expect(failed.decision.kept).toEqual([])
    expect(failed.decision.model!.note).toMatch(/^model_error: none applied/)
  })
})
