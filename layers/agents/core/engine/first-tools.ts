// The first tools (issue 19, Deliver 3). READ: recall memory, read a vault note, search and
// read worksites and Atlas messages, read an agent's briefing. WRITE (undoable from their
// snapshot): create a work item (a task), a vault inbox note, a proposed change of the
// person's instructions (a diff they apply or reject; undo deletes the proposal). EXTERNAL_WRITE (not undoable,
// approval first): start a coding-agent spawn for a work item, a team mail to internal
// recipients only. Nothing else exists for the agent (tests/unit/registry.test.ts lists
// the capabilities that must stay absent).
import { z } from 'zod'
import { createToolRegistry, defineTool, ToolError, type ToolRegistry } from './tools'

const query = z.string().trim().min(1).max(500)
/** A substring search's words; empty lists the latest (what "what is in my inbox?" asks). */
const searchQuery = z.string().trim().max(500).default('')
const limit = z.number().int().min(1).max(20).default(5)

export const FIRST_TOOLS = [
  defineTool({
    name: 'recall_memory',
    description: 'Search the hub\'s memory (scars/lessons, vault notes, projects, agents) by meaning and words.',
    class: 'READ',
    input: z.object({ query, k: limit }),
    run: async (input, { ports, tenants }) => {
      const hits = await ports.recall(input.query, input.k, tenants ?? null)
      return { output: hits, sources: hits.map(hit => ({ kind: hit.sourceType, ref: hit.sourceId, title: hit.title })) }
    },
  }),
  defineTool({
    name: 'read_vault_note',
    description: 'Read one note of the vault by its path (e.g. permanent/webhooks.md).',
    class: 'READ',
    input: z.object({ path: z.string().trim().min(1).max(1024) }),
    run: async (input, { ports, tenants }) => {
      const note = await ports.readNote(input.path, tenants ?? null)
      if (!note) throw new ToolError('not_found', `no vault note at ${input.path}`)
      return { output: note, sources: [{ kind: 'note', ref: note.path, title: note.title }] }
    },
  }),
  defineTool({
    name: 'search_worksites',
    description: 'Search chantiers, jobs and tasks by title (an empty query lists some).',
    class: 'READ',
    input: z.object({ query: searchQuery, limit }),
    run: async (input, { ports, tenants }) => {
      const hits = await ports.searchWorkItems(input.query, input.limit, tenants ?? null)
      return {
        output: hits.map(hit => ({ ...hit, link: `/hub/worksites/${hit.entity}s/${hit.id}` })),
        sources: hits.map(hit => ({ kind: hit.entity, ref: hit.id, title: hit.title })),
      }
    },
  }),
  defineTool({
    name: 'read_work_item',
    description: 'Read a chantier, job or task by its id.',
    class: 'READ',
    input: z.object({ id: z.string().uuid() }),
    run: async (input, { ports, tenants }) => {
      const item = await ports.readWorkItem(input.id, tenants ?? null)
      if (!item) throw new ToolError('not_found', `no work item ${input.id}`)
      return { output: item, sources: [{ kind: String(item.entity ?? 'work_item'), ref: input.id, title: String(item.title ?? input.id) }] }
    },
  }),
  defineTool({
    name: 'search_atlas_messages',
    description: 'Search the Atlas inbox (subject and sender; an empty query lists the latest).',
    class: 'READ',
    input: z.object({ query: searchQuery, limit }),
    run: async (input, { ports, tenants }) => {
      const hits = await ports.searchMessages(input.query, input.limit, tenants ?? null)
      return {
        output: hits.map(hit => ({ ...hit, link: `/hub/atlas/${hit.id}` })),
        sources: hits.map(hit => ({ kind: 'message', ref: String(hit.id), title: hit.subject })),
      }
    },
  }),
  defineTool({
    name: 'read_atlas_message',
    description: 'Read one Atlas message by its id.',
    class: 'READ',
    input: z.object({ id: z.number().int().positive() }),
    run: async (input, { ports, tenants }) => {
      const message = await ports.readMessage(input.id, tenants ?? null)
      if (!message) throw new ToolError('not_found', `no message ${input.id}`)
      return { output: message, sources: [{ kind: 'message', ref: String(input.id), title: String(message.subject ?? input.id) }] }
    },
  }),
  defineTool({
    name: 'read_agent_briefing',
    description: 'Read the briefing of a registry agent (persona, scars, mission) for a task.',
    class: 'READ',
    input: z.object({ codename: z.string().trim().min(1).max(100), task: z.string().max(2000).default('') }),
    run: async (input, { ports, tenants }) => {
      const briefing = await ports.agentBriefing(input.codename, input.task, tenants ?? null)
      if (!briefing) throw new ToolError('not_found', `no agent ${input.codename}`)
      return { output: briefing, sources: [{ kind: 'agent', ref: briefing.codename, title: `Briefing of ${briefing.codename}` }] }
    },
  }),
  defineTool({
    name: 'create_work_item',
    description: 'Create a task under a job of the worksites.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({
      jobId: z.string().uuid(),
      title: z.string().trim().min(1).max(300),
      description: z.string().max(10_000).default(''),
    }),
    run: async (input, { ports, actor }) => {
      const task = await ports.createTask(input, actor)
      return { output: task, write: { entity: 'work_task', id: task.id, snapshot: null, undoable: true } }
    },
    revert: async (write, { ports }) => {
      if (!(await ports.deleteCreatedTask(write.id)))
        throw new ToolError('undo_refused', 'the task changed or is gone since the agent created it')
    },
  }),
  defineTool({
    name: 'create_vault_inbox_note',
    description: 'Write a draft note into the vault inbox (a person promotes it).',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({
      name: z
        .string()
        .trim()
        .regex(/^[\w][\w .-]{0,120}\.md$/, 'a file name ending in .md'),
      body: z.string().min(1).max(50_000),
    }),
    run: async (input, { ports, actor }) => {
      const note = await ports.writeInboxNote(input, actor)
      return { output: note, write: { entity: 'vault_inbox_note', id: note.path, snapshot: null, undoable: true } }
    },
    revert: async (write, { ports }) => {
      if (!(await ports.deleteInboxNote(write.id))) throw new ToolError('undo_refused', 'the note is gone')
    },
  }),
  defineTool({
    name: 'propose_instruction_change',
    description:
      'Propose a change to the person\'s active instructions: the full new Markdown text and why. The person sees the diff and applies or rejects it; nothing changes until they do.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({ body: z.string().min(1).max(40_000), reason: z.string().trim().min(1).max(2000) }),
    run: async (input, { ports, owner, agent, runId }) => {
      if (!owner) throw new ToolError('no_owner', 'this run has no owner whose instructions could change')
      const proposed = await ports.proposeInstructionChange({
        ownerEmail: owner,
        body: input.body,
        reason: input.reason,
        runId,
        proposedBy: agent ?? 'agent',
      })
      return {
        output: { ...proposed, note: 'Proposed only: the person applies or rejects it on their instructions page.' },
        sources: [
          {
            kind: 'instructions',
            ref: `${proposed.instructionId}@v${proposed.baseVersion}`,
            title: 'the instructions the proposal is based on',
          },
        ],
        write: { entity: 'instruction_proposal', id: proposed.proposalId, snapshot: null, undoable: true },
      }
    },
    revert: async (write, { ports }) => {
      if (!(await ports.withdrawInstructionProposal(write.id)))
        throw new ToolError('undo_refused', 'the person already applied or rejected this proposal')
    },
  }),
  defineTool({
    name: 'draft_skill',
    description:
      'Draft a skill for the person after a short dialogue: an invocable name (lowercase-hyphenated), a description of when it applies (what the router reads), the Markdown instructions. Stored as a draft the person reviews and saves in the skills library; nothing is used until they do.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({
      name: z
        .string()
        .trim()
        .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase words joined by hyphens')
        .max(64),
      description: z.string().trim().min(1).max(1000),
      body: z.string().trim().min(1).max(40_000),
      tags: z.array(z.string().trim().min(1).max(40)).max(20).default([]),
    }),
    run: async (input, { ports, owner }) => {
      if (!owner) throw new ToolError('no_owner', 'this run has no owner to draft a skill for')
      const draft = await ports.draftSkill({ ownerEmail: owner, ...input })
      return {
        output: { ...draft, note: 'A draft only: the person reviews and saves it in the skills library.' },
        write: { entity: 'skill_draft', id: String(draft.skillId), snapshot: null, undoable: true },
      }
    },
    revert: async (write, { ports }) => {
      if (!(await ports.discardDraftSkill(Number(write.id)))) throw new ToolError('undo_refused', 'the person already saved this skill')
    },
  }),
  defineTool({
    name: 'start_spawn',
    description: 'Queue a coding-agent spawn for a worksites task (asks a person first).',
    class: 'EXTERNAL_WRITE',
    undo: 'not_undoable',
    input: z.object({ taskId: z.string().uuid() }),
    run: async (input, { ports, actor }) => {
      const spawn = await ports.queueSpawn(input.taskId, actor)
      return { output: spawn, write: { entity: 'atlas_spawn', id: spawn.spawnId, snapshot: null, undoable: false } }
    },
  }),
  defineTool({
    name: 'draft_team_mail',
    description: 'Send a mail to members of the internal team only (asks a person first).',
    class: 'EXTERNAL_WRITE',
    undo: 'not_undoable',
    input: z.object({
      to: z.array(z.string().email()).min(1).max(20),
      subject: z.string().trim().min(1).max(300),
      body: z.string().min(1).max(20_000),
    }),
    // Guardrails are code: a recipient outside the team is refused before anyone is asked.
    guard: async (input, { ports }) => {
      const team = new Set((await ports.teamEmails()).map(email => email.toLowerCase()))
      const outside = input.to.filter(address => !team.has(address.toLowerCase()))
      return outside.length > 0 ? `recipients outside the internal team: ${outside.join(', ')}` : null
    },
    run: async (input, { ports, actor }) => {
      const sent = await ports.sendTeamMail(input, actor)
      return { output: sent, write: { entity: 'team_mail', id: sent.messageId ?? 'unknown', snapshot: null, undoable: false } }
    },
  }),
]

export function firstToolRegistry(): ToolRegistry {
  return createToolRegistry(FIRST_TOOLS)
}
