// Instructions on both databases (issue 19 Deliver 7, seed 003 I6): documents of a person,
// every save a version (none lost), one active at a time (the database refuses two), only
// the owner sees them; an edit is read by the next chat run (the prompt's instructions layer
// names the document and version); the agent only PROPOSES a change — a diff the person
// applies (409 when the document moved on since) or rejects, and the run can undo it.
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentInstructions } from '#db/schema/agent-instructions'
import { undoWrite } from '../../core/engine/actions'
import { chatRunContext } from '../../core/engine/chat'
import { createRun, driveRun, type EngineDeps } from '../../core/engine/loop'
import type { PromptLayer } from '../../core/engine/prompt'
import { runSteps } from '../../core/engine/store'
import { unifiedDiff } from '../../core/instructions/diff'
import { activeInstructions, createDocument, documentView, listDocuments, restoreVersion, saveVersion, updateDocument } from '../../core/instructions/documents'
import { decideProposal } from '../../core/instructions/proposals'

const OPERATOR = { id: '00000000-0000-4000-8000-000000000011', email: 'op-instr@studio.test', role: 'operator' as const }
const OTHER = { id: '00000000-0000-4000-8000-000000000012', email: 'other-instr@studio.test', role: 'operator' as const }
const VIEWER = { id: '00000000-0000-4000-8000-000000000013', email: 'viewer-instr@studio.test', role: 'viewer' as const }

const plan = (steps: unknown[]) => `Tidy my instructions.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``
const instructionsLayer = (layers: unknown) => (layers as PromptLayer[]).find(layer => layer.layer === 'instructions')!

describeOnBothDatabases('instructions', (database) => {
  let deps: EngineDeps
  let docId = ''

  beforeAll(async () => {
    const { db } = database()
    deps = testEngineDeps(db)
  })

  it('keeps every save as a version, one active document per person, for its owner only', async () => {
    const { db } = database()
    const first = await createDocument(db, OPERATOR.email, { title: 'Work style', body: 'Answer in French.\n' })
    docId = first.document.id
    expect(first.document.active).toBe(true)
    expect(first.versions.map(v => v.version)).toEqual([1])
    await saveVersion(db, OPERATOR.email, docId, { body: 'Answer in French.\nBe brief.\n', note: 'shorter answers' })
    const saved = await saveVersion(db, OPERATOR.email, docId, { body: 'Answer in French.\nBe brief.\nCite sources.\n', baseVersion: 2 })
    expect(saved.versions.map(v => v.version)).toEqual([3, 2, 1])
    // A save from an editor that started at an older version is refused, nothing lost.
    await expect(saveVersion(db, OPERATOR.email, docId, { body: 'stale', baseVersion: 2 })).rejects.toMatchObject({ code: 'version_conflict', status: 409 })
    const restored = await restoreVersion(db, OPERATOR.email, docId, 1)
    expect(restored.versions[0]).toMatchObject({ version: 4, body: 'Answer in French.\n', note: 'restored from version 1' })
    expect(restored.versions).toHaveLength(4)

    const second = await createDocument(db, OPERATOR.email, { title: 'Holiday mode', body: 'I am away: only summarise.' })
    expect(second.document.active).toBe(false)
    await updateDocument(db, OPERATOR.email, second.document.id, { active: true })
    expect((await activeInstructions(db, OPERATOR.email))?.id).toBe(second.document.id)
    await updateDocument(db, OPERATOR.email, docId, { active: true })
    expect(await activeInstructions(db, OPERATOR.email)).toMatchObject({ id: docId, version: 4, body: 'Answer in French.\n' })
    expect((await listDocuments(db, OPERATOR.email)).filter(doc => doc.active).map(doc => doc.id)).toEqual([docId])
    // The database itself refuses a second active document.
    await expect(db.update(agentInstructions).set({ active: true }).where(sql`id = ${second.document.id}::uuid`)).rejects.toThrow()
    // Someone else, founders included at the route, is told it does not exist.
    await expect(documentView(db, OTHER.email, docId)).rejects.toMatchObject({ status: 404 })
    await expect(saveVersion(db, OTHER.email, docId, { body: 'hijack' })).rejects.toMatchObject({ status: 404 })
    expect(await listDocuments(db, OTHER.email)).toEqual([])
  })

  it('gives the next chat run the edited text, naming the document and its version', async () => {
    const { db } = database()
    const before = await createRun(deps, await chatRunContext(db, OPERATOR, { request: 'hello' }))
    expect(instructionsLayer(before.promptLayers)).toMatchObject({ sources: [`instructions:${docId}@v4`], text: 'Answer in French.\n' })
    await saveVersion(db, OPERATOR.email, docId, { body: 'Answer in English, with bullet points.\n' })
    const after = await createRun(deps, await chatRunContext(db, OPERATOR, { request: 'hello again' }))
    expect(instructionsLayer(after.promptLayers)).toMatchObject({ sources: [`instructions:${docId}@v5`], text: 'Answer in English, with bullet points.\n' })
    // A person without instructions: an empty layer.
    const viewerRun = await createRun(deps, await chatRunContext(db, VIEWER, { request: 'hi' }))
    expect(instructionsLayer(viewerRun.promptLayers)).toMatchObject({ sources: [], text: '' })
  })

  it('lets the agent only propose a diff; the person applies it (409 once the document moved on) or rejects it', async () => {
    const { db } = database()
    const proposed = 'Answer in English, with bullet points.\nEnd with the sources read.\n'
    const context = await chatRunContext(db, OPERATOR, { request: plan([{ call: 'propose_instruction_change', input: { body: proposed, reason: 'you asked for sources twice' } }, { answer: 'Proposed.' }]) })
    const run = await driveRun(deps, (await createRun(deps, context)).id)
    expect(run.status).toBe('succeeded')
    const step = (await runSteps(db, run.id)).find(s => s.tool === 'propose_instruction_change')!
    expect(step).toMatchObject({ status: 'ok', toolClass: 'WRITE', write: { entity: 'instruction_proposal', undoable: true } })
    // The document did not change.
    expect(await activeInstructions(db, OPERATOR.email)).toMatchObject({ version: 5, body: 'Answer in English, with bullet points.\n' })
    let view = await documentView(db, OPERATOR.email, docId)
    const proposal = view.proposals[0]!
    expect(proposal).toMatchObject({ status: 'pending', baseVersion: 5, runId: run.id, proposedBy: `personal:${OPERATOR.email}`, reason: 'you asked for sources twice' })
    expect(proposal.diff).toContain('+End with the sources read.')
    expect(proposal.diff).toContain(' Answer in English, with bullet points.')

    // Someone else cannot decide it; once the person saves again, applying is a conflict.
    await expect(decideProposal(db, OTHER.email, docId, proposal.id, 'apply')).rejects.toMatchObject({ status: 404 })
    await saveVersion(db, OPERATOR.email, docId, { body: 'Answer in English.\n' })
    await expect(decideProposal(db, OPERATOR.email, docId, proposal.id, 'apply')).rejects.toMatchObject({ code: 'version_conflict', status: 409 })
    view = await decideProposal(db, OPERATOR.email, docId, proposal.id, 'reject')
    expect(view.proposals[0]).toMatchObject({ status: 'rejected', decidedBy: OPERATOR.email })
    expect(view.versions[0]!.version).toBe(6)

    // A fresh proposal on the latest version applies as a new version.
    const again = await driveRun(deps, (await createRun(deps, await chatRunContext(db, OPERATOR, { request: plan([{ call: 'propose_instruction_change', input: { body: 'Answer in English.\nBe kind.\n', reason: 'tone' } }, { answer: 'ok' }]) }))).id)
    const fresh = (await documentView(db, OPERATOR.email, docId)).proposals.find(p => p.runId === again.id)!
    view = await decideProposal(db, OPERATOR.email, docId, fresh.id, 'apply')
    expect(view.versions[0]).toMatchObject({ version: 7, body: 'Answer in English.\nBe kind.\n', author: OPERATOR.email })
    expect(view.proposals.find(p => p.id === fresh.id)).toMatchObject({ status: 'applied', appliedVersion: 7 })
    await expect(decideProposal(db, OPERATOR.email, docId, fresh.id, 'reject')).rejects.toMatchObject({ code: 'already_decided', status: 409 })
    // Its undo is refused once decided.
    const freshStep = (await runSteps(db, again.id)).find(s => s.tool === 'propose_instruction_change')!
    await expect(undoWrite(deps, again.id, freshStep.id, OPERATOR)).rejects.toMatchObject({ code: 'undo_refused' })

    // A third proposal undone from the run page: the proposal is gone.
    const third = await driveRun(deps, (await createRun(deps, await chatRunContext(db, OPERATOR, { request: plan([{ call: 'propose_instruction_change', input: { body: 'x\n', reason: 'y' } }, { answer: 'ok' }]) }))).id)
    const thirdStep = (await runSteps(db, third.id)).find(s => s.tool === 'propose_instruction_change')!
    expect((await documentView(db, OPERATOR.email, docId)).proposals.some(p => p.runId === third.id)).toBe(true)
    await undoWrite(deps, third.id, thirdStep.id, OPERATOR)
    expect((await documentView(db, OPERATOR.email, docId)).proposals.some(p => p.runId === third.id)).toBe(false)
  })

  it('refuses the proposing tool to a viewer\'s agent, and without an active document tells the model why', async () => {
    const { db } = database()
    const viewer = await driveRun(deps, (await createRun(deps, await chatRunContext(db, VIEWER, { request: plan([{ call: 'propose_instruction_change', input: { body: 'x', reason: 'y' } }, { answer: 'ok' }]) }))).id)
    expect((await runSteps(db, viewer.id)).find(s => s.tool === 'propose_instruction_change')).toMatchObject({ status: 'denied', error: expect.stringContaining('role_forbids_write') })
    const none = await driveRun(deps, (await createRun(deps, await chatRunContext(db, OTHER, { request: plan([{ call: 'propose_instruction_change', input: { body: 'x', reason: 'y' } }, { answer: 'ok' }]) }))).id)
    expect((await runSteps(db, none.id)).find(s => s.tool === 'propose_instruction_change')).toMatchObject({ status: 'error', error: expect.stringContaining('no_active_instructions') })
  })
})

describe('the unified diff', () => {
  it('shows hunks with context, and nothing for equal texts', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')
    const after = before.replace('line 3', 'line three').replace('line 18', 'line 18\nline 18b')
    const diff = unifiedDiff(before, after, { from: 'a', to: 'b' })
    expect(diff).toBe([
      '--- a', '+++ b',
      '@@ -1,6 +1,6 @@', ' line 1', ' line 2', '-line 3', '+line three', ' line 4', ' line 5', ' line 6',
      '@@ -16,5 +16,6 @@', ' line 16', ' line 17', ' line 18', '+line 18b', ' line 19', ' line 20', '',
    ].join('\n'))
    expect(unifiedDiff('same\n', 'same\n', { from: 'a', to: 'b' })).toBe('')
    expect(unifiedDiff('', 'new\n', { from: 'a', to: 'b' })).toBe('--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new\n')
  })
})
