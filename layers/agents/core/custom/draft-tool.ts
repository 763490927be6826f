// draft_custom_agent (issue 21 Deliver 6): the personal agent's tool that stores a custom
// agent's DRAFT for the person (never an agent). WRITE, undone by withdrawing the draft. A
// custom agent never holds it (PERSONAL_ONLY_TOOLS in access.ts).
import { defineTool, ToolError, type ToolDefinition } from '../engine/tools'
import { DraftInput } from './drafts'

export const DRAFT_CUSTOM_AGENT: ToolDefinition = defineTool({
  name: 'draft_custom_agent',
  description: 'Draft a custom agent for the person after a short dialogue: codename (lowercase-hyphenated), nickname, description, Markdown instructions, triggers, model and the tools you SUGGEST it be allowed. Stored as a draft the person reviews, edits and saves on /hub/agents/custom; it grants nothing until they confirm each tool.',
  class: 'WRITE',
  undo: 'snapshot',
  input: DraftInput,
  run: async (input, { ports, owner, runId, context }) => {
    if (!owner || !context) throw new ToolError('no_owner', 'this run has no person to draft an agent for')
    if (!ports.draftCustomAgent) throw new ToolError('no_drafting', 'drafting agents is not available to this run')
    const draft = await ports.draftCustomAgent({ ...input, ownerEmail: owner, role: context.actingUser.role, runId })
    return {
      output: { ...draft, note: 'A draft only: the person reviews it, confirms the tools and saves it. Tools refused are out of their role.' },
      write: { entity: 'custom_agent_draft', id: draft.draftId, snapshot: null, undoable: true },
    }
  },
  revert: async (write, { ports }) => {
    if (!ports.discardCustomAgentDraft || !await ports.discardCustomAgentDraft(write.id)) throw new ToolError('undo_refused', 'the person already saved or discarded this draft')
  },
})
