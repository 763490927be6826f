// A custom agent drafted by the personal agent, on both databases (issue 21 Deliver 6): the
// chat's run calls draft_custom_agent (scripted offline model); a draft is stored — never an
// agent — with the suggested tools filtered by the person's role (refused ones said); undo
// withdraws it; the person's save makes version 1 with only the tools they confirmed, and a
// draft is personal (someone else's is 404).
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentCustom, agentCustomDrafts } from '#db/schema/custom-agents'
import { agentInstructionVersions } from '#db/schema/agent-instructions'
import { draftPorts } from '../../core/custom/draft-ports'
import { customToolRegistry } from '../../core/custom/delegation'
import { discardDraft, filterSuggestedTools, listDrafts, ownDraft, saveDraft, SaveDraftBody } from '../../core/custom/drafts'
import { undoWrite } from '../../core/engine/actions'
import { chatRunContext } from '../../core/engine/chat'
import { createRun, driveRun, type EngineDeps } from '../../core/engine/loop'
import { runSteps } from '../../core/engine/store'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000121', email: 'op-draft@studio.test', role: 'operator' as const }
const VIEWER = { id: '00000000-0000-4000-8000-000000000122', email: 'viewer-draft@studio.test', role: 'viewer' as const }
const plan = (text: string, steps: unknown[]) => `${text}\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``
const DRAFT = {
  codename: 'invoice-watcher', nickname: 'Invoice watcher', description: 'Watches invoices and notes the late ones.',
  instructions: 'Read each new invoice message; note the late ones.', triggers: [{ kind: 'schedule', cron: '0 8 * * 1' }],
  tools: ['search_atlas_messages', 'create_work_item', 'delegate_to_agent', 'draft_custom_agent', 'wipe_everything'],
}

describeOnBothDatabases('custom agent drafts', (database) => {
  let deps: EngineDeps
  const chat = async (person: typeof OPERATOR | typeof VIEWER, input: Record<string, unknown>) => {
    const created = await createRun(deps, await chatRunContext(database().db, person, { request: plan('Make me an agent that watches invoices', [{ call: 'draft_custom_agent', input }, { answer: 'Drafted.' }]) }))
    const done = await driveRun(deps, created.id)
    return (await runSteps(database().db, done.id)).find(step => step.tool === 'draft_custom_agent')!
  }

  beforeAll(async () => {
    const { db } = database()
    deps = testEngineDeps(db, { registry: customToolRegistry(), ports: draftPorts(db) })
  })

  it('stores a draft, never an agent, with the suggested tools filtered and the refused ones said; undo withdraws it', async () => {
    const { db } = database()
    const step = await chat(OPERATOR, DRAFT)
    expect(step).toMatchObject({ status: 'ok', write: expect.objectContaining({ entity: 'custom_agent_draft', undoable: true }) })
    expect(await db.select().from(agentCustom).where(eq(agentCustom.codename, 'invoice-watcher'))).toEqual([])
    const draft = await ownDraft(db, OPERATOR.email, (step.write as { id: string }).id)
    expect(draft.proposal.suggestedTools).toEqual(['search_atlas_messages', 'create_work_item'])
    expect(draft.proposal.refusedTools.map(t => t.name)).toEqual(['delegate_to_agent', 'draft_custom_agent', 'wipe_everything'])
    expect(step.output).toContain('refusedTools')
    await undoWrite(deps, step.runId, step.id, OPERATOR)
    expect((await ownDraft(db, OPERATOR.email, draft.id)).status).toBe('discarded')
    expect(await listDrafts(db, OPERATOR.email)).toEqual([])
  })

  it('never lets a viewer draft (a WRITE), nor any draft of theirs suggest a write tool', async () => {
    const { db } = database()
    const step = await chat(VIEWER, { ...DRAFT, codename: 'viewer-watcher' })
    expect(step).toMatchObject({ status: 'denied', write: null })
    expect(await listDrafts(db, VIEWER.email)).toEqual([])
    const filtered = filterSuggestedTools(customToolRegistry(), 'viewer', DRAFT.tools)
    expect(filtered.suggestedTools).toEqual(['search_atlas_messages'])
    expect(filtered.refusedTools).toContainEqual({ name: 'create_work_item', reason: 'a viewer cannot use WRITE tools' })
  })

  it('saves a reviewed draft as version 1 with only the confirmed tools; a draft is its person\'s only', async () => {
    const { db } = database()
    const step = await chat(OPERATOR, DRAFT)
    const id = (step.write as { id: string }).id
    await expect(ownDraft(db, VIEWER.email, id)).rejects.toMatchObject({ status: 404 })
    const form = { codename: 'invoice-watcher', nickname: 'Invoice watcher', description: 'Edited by the person.', instructions: 'Read each invoice.', triggers: DRAFT.triggers }
    // A suggested tool in the allowlist without the person's confirmation grants nothing: refused.
    await expect(saveDraft(db, OPERATOR, id, SaveDraftBody.parse({ ...form, allowlist: { tools: ['search_atlas_messages', 'create_work_item'] }, confirmTools: ['search_atlas_messages'] })))
      .rejects.toMatchObject({ status: 400, code: 'unconfirmed_tools', details: { tools: ['create_work_item'] } })
    expect(await db.select().from(agentCustom).where(eq(agentCustom.codename, 'invoice-watcher'))).toEqual([])
    const view = await saveDraft(db, OPERATOR, id, SaveDraftBody.parse({ ...form, allowlist: { tools: ['search_atlas_messages'] }, confirmTools: ['search_atlas_messages'] }))
    expect(view.agent).toMatchObject({ codename: 'invoice-watcher', version: 1, ownerEmail: OPERATOR.email, description: 'Edited by the person.' })
    expect(view.agent.allowlist.tools).toEqual(['search_atlas_messages'])
    expect(view.triggers.map(t => t.cron)).toEqual(['0 8 * * 1'])
    const [instructions] = await db
      .select()
      .from(agentInstructionVersions)
      .where(eq(agentInstructionVersions.instructionId, view.agent.instructionId!))
    expect(instructions!.body).toBe('Read each invoice.')
    const [row] = await db.select().from(agentCustomDrafts).where(eq(agentCustomDrafts.id, id))
    expect(row).toMatchObject({ status: 'saved', savedAs: 'invoice-watcher' })
    await expect(discardDraft(db, OPERATOR.email, id)).rejects.toMatchObject({ status: 409 })
    // Once saved, the chat's undo no longer withdraws it.
    await expect(undoWrite(deps, step.runId, step.id, OPERATOR)).rejects.toThrow()
  })
})
