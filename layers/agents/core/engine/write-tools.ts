// The personal agent's changes to what exists (issue 35, Deliver 4), each through the policy:
// WRITE (runs at once, undone from its step's snapshot): a chantier's, job's or task's status
// and owner, the answer of a question / négociation / conseil, the body of a vault inbox note
// (never another zone), a lesson attached to a spawn. EXTERNAL_WRITE (a person approves it
// first): a reply drafted to a client — words addressed to an outsider, as a draft on
// the message's page that a person edits and sends themselves; the agent never sends it
// (seed 003 §14.3: a draft for a third party is an external write). Every undo restores the
// snapshot only while the record is still as the write left it. Personal agent only: these
// tools do not read a custom agent's tenant scope, so no allowlist may hold them (access.ts).
import { z } from 'zod'
import { defineTool, ToolError, type ToolRunContext, type ToolWrite } from './tools'

const uuid = z.string().uuid()
const owner = z.discriminatedUnion('kind', [z.object({ kind: z.literal('agent'), codename: z.string() }), z.object({ kind: z.literal('user'), id: z.string() })]).nullable()
const WorkItemSnapshot = z.object({ status: z.string(), owner })
const RecordSnapshot = z.object({
  status: z.string(),
  resolution: z.string().nullable(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
})

/** The snapshot a step recorded, read back through its schema (a row edited by hand is refused, not applied). */
function snapshotOf<S extends z.ZodType>(write: ToolWrite, schema: S): z.output<S> {
  const parsed = schema.safeParse(write.snapshot)
  if (!parsed.success) throw new ToolError('undo_refused', `the snapshot of this ${write.entity} write is unreadable`)
  return parsed.data
}

/** Tenant-scoped (allowlist) runs never get here through access.ts; refused here too, in code. */
async function personalOnly(_input: unknown, ctx: ToolRunContext): Promise<string | null> {
  return ctx.tenants ? 'this tool belongs to the personal agent; a custom agent cannot use it' : null
}

const RECORD_LINK = { question: 'questions', negociation: 'negociations', conseil: 'conseils' } as const

export const WRITE_TOOLS = [
  defineTool({
    name: 'update_work_item',
    description:
      'Change the status and/or the owner of a chantier, job or task (owner: {"agent": codename}, {"email": a person of the hub}, or null for nobody). A status follows the worksites transitions; cancelling or rejecting a chantier needs a reason.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z
      .object({
        entity: z.enum(['chantier', 'job', 'task']),
        id: uuid,
        status: z.string().trim().min(1).max(40).optional(),
        reason: z.string().trim().min(1).max(2000).optional(),
        owner: z
          .union([
            z.object({ agent: z.string().trim().min(1).max(64) }).strict(),
            z.object({ email: z.string().email() }).strict(),
            z.null(),
          ])
          .optional(),
      })
      .refine(input => input.status !== undefined || input.owner !== undefined, 'give a status, an owner, or both'),
    guard: personalOnly,
    run: async (input, { ports, actor }) => {
      const changed = await ports.updateWorkItem(input, actor)
      return {
        output: { entity: input.entity, id: input.id, title: changed.title, before: changed.before, after: changed.after },
        sources: [{ kind: input.entity, ref: input.id, title: changed.title }],
        write: { entity: `work_${input.entity}`, id: input.id, snapshot: { before: changed.before, after: changed.after }, undoable: true },
      }
    },
    revert: async (write, { ports, actor }) => {
      const { before, after } = snapshotOf(write, z.object({ before: WorkItemSnapshot, after: WorkItemSnapshot }))
      const entity = write.entity.replace(/^work_/, '') as 'chantier' | 'job' | 'task'
      if (!(await ports.restoreWorkItem({ entity, id: write.id, before, after }, actor))) {
        throw new ToolError('undo_refused', `the ${entity} changed since the agent's change (or is gone): it is left as it is`)
      }
    },
  }),
  defineTool({
    name: 'answer_registry_record',
    description:
      'Answer an open question, give the advice of a conseil, or settle a négociation (outcome won or lost), with the text kept as its resolution. Recorded only: nothing is sent to anyone.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z
      .object({
        kind: z.enum(['question', 'negociation', 'conseil']),
        id: uuid,
        answer: z.string().trim().min(1).max(20_000),
        outcome: z.enum(['won', 'lost']).optional(),
      })
      .refine(input => input.kind !== 'negociation' || input.outcome !== undefined, {
        message: 'a négociation is settled with an outcome: won or lost',
        path: ['outcome'],
      }),
    guard: personalOnly,
    run: async (input, { ports, actor }) => {
      const answered = await ports.answerRecord(input, actor)
      return {
        output: {
          kind: input.kind,
          id: input.id,
          title: answered.title,
          status: answered.after.status,
          link: `/hub/worksites/registries/${RECORD_LINK[input.kind]}/${input.id}`,
        },
        sources: [{ kind: input.kind, ref: input.id, title: answered.title }],
        write: { entity: `work_${input.kind}`, id: input.id, snapshot: { before: answered.before, after: answered.after }, undoable: true },
      }
    },
    revert: async (write, { ports, actor }) => {
      const { before, after } = snapshotOf(write, z.object({ before: RecordSnapshot, after: RecordSnapshot }))
      const kind = write.entity.replace(/^work_/, '') as 'question' | 'negociation' | 'conseil'
      if (!(await ports.restoreRecord({ kind, id: write.id, before, after }, actor))) {
        throw new ToolError('undo_refused', `the ${kind} changed since the agent answered it (or is gone): it is left as it is`)
      }
    },
  }),
  defineTool({
    name: 'edit_vault_inbox_note',
    description:
      'Replace the body of a draft note of the vault inbox (path inbox/…; its front matter is kept). Notes of any other zone are a person\'s to edit.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({ path: z.string().trim().min(1).max(1024), body: z.string().min(1).max(50_000) }),
    // The zone is decided on the path before anything is read: the permanent notes are never touched.
    guard: async (input, ctx) => {
      const scoped = await personalOnly(input, ctx)
      if (scoped) return scoped
      return input.path.startsWith('inbox/') && !input.path.split('/').includes('..')
        ? null
        : `only notes of the vault inbox (inbox/…) can be edited; ${input.path.slice(0, 200)} is outside it (a person promotes and edits those)`
    },
    run: async (input, { ports, actor }) => {
      const edit = await ports.editInboxNote(input, actor)
      return {
        output: { path: edit.path, chars: edit.after.length },
        sources: [{ kind: 'note', ref: edit.path, title: edit.path }],
        write: { entity: 'vault_inbox_note', id: edit.path, snapshot: { before: edit.before, after: edit.after }, undoable: true },
      }
    },
    revert: async (write, { ports }) => {
      const { before, after } = snapshotOf(write, z.object({ before: z.string(), after: z.string() }))
      if (!(await ports.restoreInboxNote({ path: write.id, before, after })))
        throw new ToolError('undo_refused', 'the note changed since the agent edited it (or is gone): it is left as it is')
    },
  }),
  defineTool({
    name: 'draft_client_reply',
    description:
      'Write the reply to an Atlas message as a draft on its page (it replaces the current draft): a person of the team reviews, edits and sends it from their own mailbox. Asks a person first; never sent by the agent.',
    class: 'EXTERNAL_WRITE',
    undo: 'snapshot',
    input: z.object({ messageId: z.number().int().positive(), body: z.string().trim().min(1).max(20_000) }),
    guard: async (input, ctx) => {
      const scoped = await personalOnly(input, ctx)
      if (scoped) return scoped
      return (await ctx.ports.readMessage(input.messageId, null)) ? null : `no Atlas message #${input.messageId}`
    },
    run: async (input, { ports, actor }) => {
      const draft = await ports.draftClientReply(input, actor)
      return {
        output: { ...draft, note: 'A draft only: a person sends it from the message page.' },
        sources: [{ kind: 'message', ref: String(input.messageId), title: draft.subject }],
        write: { entity: 'atlas_reply_draft', id: String(draft.draftId), snapshot: { supersededId: draft.supersededId }, undoable: true },
      }
    },
    revert: async (write, { ports, actor }) => {
      const { supersededId } = snapshotOf(write, z.object({ supersededId: z.number().int().nullable() }))
      if (!(await ports.withdrawClientReply({ draftId: Number(write.id), supersededId }, actor))) {
        throw new ToolError('undo_refused', 'the draft was already sent, discarded or replaced by a person: it is left as it is')
      }
    },
  }),
  defineTool({
    name: 'attach_lesson_to_spawn',
    description:
      'Attach a lesson (a scar or a victory of the learning registry, by id) to the spawn it is about: it shows on the spawn and in its message\'s story.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({ lessonId: z.number().int().positive(), spawnId: uuid }),
    guard: personalOnly,
    run: async (input, { ports, actor }) => {
      const attached = await ports.attachLesson(input, actor)
      return {
        output: { lessonId: input.lessonId, spawnId: input.spawnId, title: attached.title },
        sources: [{ kind: 'lesson', ref: String(input.lessonId), title: attached.title }],
        write: {
          entity: 'learn_lesson',
          id: String(input.lessonId),
          snapshot: { spawnId: input.spawnId, before: attached.before },
          undoable: true,
        },
      }
    },
    revert: async (write, { ports, actor }) => {
      const { spawnId, before } = snapshotOf(
        write,
        z.object({ spawnId: uuid, before: z.object({ sourceSpawnId: uuid.nullable(), tags: z.array(z.string()) }) }),
      )
      if (!(await ports.detachLesson({ lessonId: Number(write.id), spawnId, before }, actor)))
        throw new ToolError('undo_refused', 'the lesson no longer carries this link: it is left as it is')
    },
  }),
]

/** The names access.ts keeps out of every custom agent's allowlist. */
export const WRITE_TOOL_NAMES: readonly string[] = WRITE_TOOLS.map(tool => tool.name)
