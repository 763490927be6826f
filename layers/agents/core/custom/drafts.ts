// Custom agents drafted by the personal agent (issue 21 Deliver 6, seed 003 §9): from a short
// dialogue the person's agent proposes a name, description, instructions, triggers, model and a
// SUGGESTED allowlist (draft_custom_agent). That is stored as a draft, never an agent: the
// person reviews it prefilled in the create form, edits, and saves a real agent (version 1).
// A draft grants nothing by itself — the saved allowlist is only what the person ticked and
// confirmed — and cannot even suggest a tool the person's role does not have (filtered and said).
import { and, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentCustomDrafts, type AgentCustomDraft, type CustomAgentProposal } from '#db/schema/custom-agents'
import { agentInstructions } from '#db/schema/agent-instructions'
import { EngineError } from '../engine/errors'
import type { ToolRegistry } from '../engine/tools'
import { HUB_ROLE_RANK, type PersonRole } from '../engine/vocabulary'
import { DELEGATE_TOOL, PERSONAL_ONLY_TOOLS } from './access'
import { createCustomAgent, CreateCustomBody, type CustomAgentView, type Editor } from './agents'
import { createDocument } from '../instructions/documents'
import { TriggerInput } from './triggers'

export const DraftInput = z.object({
  codename: z.string().trim().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase words joined by hyphens').min(2).max(64),
  nickname: z.string().trim().min(1).max(64),
  description: z.string().trim().min(1).max(2000),
  instructions: z.string().trim().max(40_000).default(''),
  triggers: z.array(TriggerInput).max(20).default([]),
  model: z.object({ provider: z.enum(['auto', 'mistral', 'anthropic', 'openai', 'openai-compat', 'offline']), model: z.string().min(1).max(200).optional() }).strict().default({ provider: 'auto' }),
  tools: z.array(z.string().trim().min(1).max(64)).max(64).default([]),
})
export type DraftInput = z.input<typeof DraftInput>

/** Splits the suggested tools into those the person could grant and those refused (with why). */
export function filterSuggestedTools(registry: ToolRegistry, role: PersonRole, names: readonly string[]): Pick<CustomAgentProposal, 'suggestedTools' | 'refusedTools'> {
  const suggestedTools: string[] = []
  const refusedTools: CustomAgentProposal['refusedTools'] = []
  for (const name of new Set(names)) {
    const tool = registry.get(name)
    if (!tool) refusedTools.push({ name, reason: 'no such tool' })
    else if (PERSONAL_ONLY_TOOLS.includes(name) || name === DELEGATE_TOOL) refusedTools.push({ name, reason: 'not a tool an agent is granted through its allowlist' })
    else if (tool.class !== 'READ' && HUB_ROLE_RANK[role] < HUB_ROLE_RANK.operator) refusedTools.push({ name, reason: `a ${role} cannot use ${tool.class} tools` })
    else suggestedTools.push(name)
  }
  return { suggestedTools, refusedTools }
}

export async function createDraft(
  db: Db,
  registry: ToolRegistry,
  input: DraftInput & { ownerEmail: string, role: PersonRole, runId: string | null },
): Promise<AgentCustomDraft> {
  const parsed = DraftInput.parse(input)
  const { tools, ...rest } = parsed
  const proposal: CustomAgentProposal = { ...rest, ...filterSuggestedTools(registry, input.role, tools) }
  const [row] = await db.insert(agentCustomDrafts).values({ ownerEmail: input.ownerEmail, runId: input.runId, proposal }).returning()
  return row!
}

/** The undo of draft_custom_agent: withdraws the draft while it is one (false once saved or discarded). */
export async function withdrawDraft(db: Db, id: string): Promise<boolean> {
  const rows = await db.update(agentCustomDrafts).set({ status: 'discarded', updatedAt: new Date() })
    .where(and(eq(agentCustomDrafts.id, id), eq(agentCustomDrafts.status, 'draft'))).returning({ id: agentCustomDrafts.id })
  return rows.length > 0
}

export async function listDrafts(db: Db, email: string): Promise<AgentCustomDraft[]> {
  return await db.select().from(agentCustomDrafts).where(and(eq(agentCustomDrafts.ownerEmail, email), eq(agentCustomDrafts.status, 'draft'))).orderBy(desc(agentCustomDrafts.createdAt))
}

/** A person's own draft (anyone else, founders included, is told it does not exist: drafts are personal). */
export async function ownDraft(db: Db, email: string, id: string): Promise<AgentCustomDraft> {
  const [row] = await db.select().from(agentCustomDrafts).where(and(eq(agentCustomDrafts.id, id), eq(agentCustomDrafts.ownerEmail, email)))
  if (!row) throw new EngineError('not_found', `no draft ${id}`, 404)
  return row
}

export async function discardDraft(db: Db, email: string, id: string): Promise<void> {
  const draft = await ownDraft(db, email, id)
  if (draft.status !== 'draft') throw new EngineError('draft_closed', `the draft was already ${draft.status}`, 409, { status: draft.status })
  await withdrawDraft(db, id)
}

/**
 * The person's save of a reviewed draft: the create form's body, the instructions text (kept as
 * an instruction document of theirs) and `confirmTools` — the allowlist's tools must be exactly
 * the ones the person confirmed, so no suggested tool reaches the agent unless they ticked it.
 */
export const SaveDraftBody = CreateCustomBody.extend({
  instructions: z.string().max(40_000).default(''),
  confirmTools: z.array(z.string().min(1).max(64)).max(64),
}).strict()

export async function saveDraft(db: Db, editor: Editor, id: string, body: z.output<typeof SaveDraftBody>): Promise<CustomAgentView> {
  const draft = await ownDraft(db, editor.email, id)
  if (draft.status !== 'draft') throw new EngineError('draft_closed', `the draft was already ${draft.status}`, 409, { status: draft.status })
  const { instructions, confirmTools, template: _template, ...config } = body
  const unconfirmed = config.allowlist.tools.filter(tool => !confirmTools.includes(tool))
  if (unconfirmed.length > 0) throw new EngineError('unconfirmed_tools', `allowlist.tools: confirm ${unconfirmed.join(', ')} before granting them`, 400, { tools: unconfirmed })
  let instructionId = config.instructionId
  if (!instructionId && instructions.trim()) {
    instructionId = (await createDocument(db, editor.email, { title: `Instructions of ${config.nickname}`, body: instructions, active: false, note: 'from a drafted agent' })).document.id
  }
  let view: CustomAgentView
  try {
    view = await createCustomAgent(db, editor, { ...config, instructionId, note: config.note || 'saved from a draft of the personal agent' })
  }
  catch (error) {
    // The document was made for this agent only: it goes with the failed save.
    if (instructionId && instructionId !== config.instructionId)
      await db.delete(agentInstructions).where(eq(agentInstructions.id, instructionId))
    throw error
  }
  await db.update(agentCustomDrafts).set({ status: 'saved', savedAs: config.codename, updatedAt: new Date() }).where(eq(agentCustomDrafts.id, id))
  return view
}
