// The skills in a run, on both databases (issue 21 Deliver 1, 3, 4): the hub's engine wiring
// with the library's router port, offline. The router's decision is a `skills` step of the
// run (kept, dropped, scores); the chosen skill's body reaches the prompt's skills layer and
// the answer names it (I5); a `/name` skill is kept whatever its score; a skill's tools only
// narrow the run's; the personal agent's `draft_skill` stores a draft, undoable.
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { skillRuns, skills } from '#db/schema/skills'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { undoWrite } from '#layers/agents/core/engine/actions'
import { chatRunContext } from '#layers/agents/core/engine/chat'
import { createRun, driveRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import type { PromptLayer } from '#layers/agents/core/engine/prompt'
import { runSteps } from '#layers/agents/core/engine/store'
import { seedBuiltInSkills } from '../../core/builtins'
import { createSkill, enabledSkills, listLibrary } from '../../core/library'
import { skillRouterPort } from '../../core/port'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000021', email: 'op-skills-run@studio.test', role: 'operator' as const }
const plan = (text: string, steps: unknown[]) => `${text}\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describeOnBothDatabases('skills in a run', (database) => {
  let deps: EngineDeps
  const run = async (request: string) => {
    const created = await createRun(deps, await chatRunContext(database().db, OPERATOR, { request }))
    const done = await driveRun(deps, created.id)
    const steps = await runSteps(database().db, done.id)
    return { run: done, steps, routing: steps.find(s => s.kind === 'skills')!, layer: (done.promptLayers as PromptLayer[]).find(l => l.layer === 'skills')! }
  }

  beforeAll(async () => {
    const { db } = database()
    deps = testEngineDeps(db, { skillRouter: skillRouterPort(db, offlineEmbedder(db)) })
    await seedBuiltInSkills(db)
  })

  it('applies the clear match, logs the decision as a run step, puts the body in the prompt, names the skill in the answer, counts the use', async () => {
    const { run: done, routing, layer } = await run('Write a recap of the meeting with decisions and next steps')
    expect(routing).toMatchObject({ kind: 'skills', status: 'ok', skills: ['write-a-recap'] })
    const decision = routing.input as {
      branch: string
      kept: Array<{ name: string, mode: string, score: number }>
      dropped: Array<{ name: string, reason: string, score: number }>
      candidates: unknown[]
    }
    expect(decision.branch).toBe('high')
    expect(decision.kept).toEqual([expect.objectContaining({ name: 'write-a-recap', mode: 'auto', score: expect.any(Number) })])
    expect(decision.dropped.every(d => typeof d.reason === 'string')).toBe(true)
    expect(layer.sources).toEqual(['write-a-recap'])
    expect(layer.text).toContain('Start with the decisions taken')
    expect(done.status).toBe('succeeded')
    expect(done.answer).toContain('write-a-recap')
    const [recap] = await database().db.select().from(skills).where(eq(skills.name, 'write-a-recap'))
    expect(await database().db.select().from(skillRuns).where(eq(skillRuns.skillId, recap!.id))).toEqual([expect.objectContaining({ runId: done.id, mode: 'auto', email: OPERATOR.email })])
    expect((await listLibrary(database().db, OPERATOR.email)).mine[0]).toMatchObject({ name: 'write-a-recap', uses: 1 })
  })

  it('offline, a request between the thresholds gets no skill; below the low one none either — both logged', async () => {
    const ambiguous = await run('Un texte sur la réunion')
    expect((ambiguous.routing.input as { branch: string }).branch).toBe('ambiguous_offline')
    expect(ambiguous.routing.skills).toEqual([])
    const unrelated = await run('What is the weather like in Lyon today?')
    expect((unrelated.routing.input as { branch: string }).branch).toBe('low')
    expect(unrelated.layer.text).toBe('')
  })

  it('keeps a /name skill even when nothing matches, and its tools only narrow the run\'s', async () => {
    await createSkill(database().db, OPERATOR, { name: 'read-only-research', description: 'Research using memory only', body: 'Only search memory.', allowedTools: ['recall_memory'] })
    const { run: done, steps, routing } = await run(plan('/read-only-research weather in Lyon', [{ call: 'create_vault_inbox_note', input: { name: 'x', body: 'y' } }, { answer: 'Done.' }]))
    expect(routing.input).toMatchObject({ kept: [expect.objectContaining({ name: 'read-only-research', mode: 'forced' })] })
    expect((done.context as { skillTools: string[] }).skillTools).toEqual(['recall_memory'])
    expect(steps.find(s => s.tool === 'create_vault_inbox_note')).toMatchObject({ status: 'denied', error: expect.stringContaining('not_allowed_by_skill') })
    expect(done.answer).toContain('read-only-research')
  })

  it('drafts a skill from the chat (draft_skill): a draft the person saves, not routed meanwhile, and undoable', async () => {
    const { db } = database()
    const request = plan('Help me make a skill for invoices', [{ call: 'draft_skill', input: { name: 'invoice-follow-up', description: 'Follow up an unpaid invoice politely', body: '1. Check the due date.\n2. Draft a reminder.' } }, { answer: 'Drafted.' }])
    const { steps } = await run(request)
    const step = steps.find(s => s.tool === 'draft_skill')!
    expect(step).toMatchObject({ status: 'ok', write: expect.objectContaining({ entity: 'skill_draft', undoable: true }) })
    const [draft] = await db.select().from(skills).where(eq(skills.name, 'invoice-follow-up'))
    expect(draft).toMatchObject({ draft: true, origin: 'assistant', ownerEmail: OPERATOR.email, visibility: 'private' })
    expect((await enabledSkills(db, OPERATOR.email)).map(s => s.name)).not.toContain('invoice-follow-up')
    expect((await listLibrary(db, OPERATOR.email)).mine.find(s => s.name === 'invoice-follow-up')).toMatchObject({ draft: true })
    await undoWrite(deps, step.runId, step.id, OPERATOR)
    expect(await db.select().from(skills).where(eq(skills.name, 'invoice-follow-up'))).toEqual([])
  })
})
