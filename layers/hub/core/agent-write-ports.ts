// The personal agent's write tools wired to the domains (issue 35, Deliver 4): worksites'
// own transitions, assignments and registry actions (so work_transitions and hub_audit name
// the agent's run and the person), the memory's inbox edit, the spawn layer's reply drafts
// and learning's lesson links. Each domain's refusal reaches the model as a step error it can
// read (ToolError with the domain's code), never as a crash of the run.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { atlasMessages, atlasReplyDrafts } from '#db/schema/atlas'
import { hubUsers } from '#db/schema/hub'
import type { WorkItemSnapshot, WritePorts } from '#layers/agents/core/engine/ports'
import { ToolError } from '#layers/agents/core/engine/tools'
import { editInboxNote, restoreInboxNote } from '#layers/memory/core/vault/inbox-edit'
import { VaultPathError } from '#layers/memory/core/vault/paths'
import { WorksitesError } from '#layers/worksites/core/errors'
import { ownerColumnsFor } from '#layers/worksites/core/owners'
import { actOnRecord } from '#layers/worksites/core/registry-actions'
import { recordResolution, restoreRecord, restoreWorkItem, workItemState } from '#layers/worksites/core/restore'
import { assign, transition } from '#layers/worksites/core/transitions'
import type { Owner } from '#layers/worksites/shared/api'
import { ReplyDraftError, withSignature, withdrawReplyDraft, writeReplyDraft } from '#layers/spawn/core/reply-draft'
import { attachLessonToSpawn, detachLessonFromSpawn, LessonLinkError } from '#layers/learning/core/lesson-spawn'

export interface WritePortsDeps {
  db: Db
  vaultDir: string
  /** The team's signature under reply drafts (ATLAS_TEAM_SIGNATURE). */
  signature: string
}

const REGISTRY_KIND = { question: 'questions', negociation: 'negociations', conseil: 'conseils' } as const
const ANSWERED = { question: 'answered', conseil: 'given' } as const

/** The domain's refusal as the model reads it; anything else is a real failure and stays one. */
async function told<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof WorksitesError || error instanceof LessonLinkError || error instanceof ReplyDraftError)
      throw new ToolError(error.code, error.message)
    if (error instanceof VaultPathError) throw new ToolError(error.code, error.message)
    throw error
  }
}

export function hubWritePorts(deps: WritePortsDeps): WritePorts {
  const { db } = deps
  /** The owner the model named, as worksites stores it (a person by their hub id); checked to exist. */
  const ownerOf = async (owner: { agent: string } | { email: string } | null): Promise<Owner> => {
    if (owner === null) return null
    if ('agent' in owner) return { kind: 'agent', codename: owner.agent }
    const [user] = await db.select({ id: hubUsers.id }).from(hubUsers).where(eq(hubUsers.email, owner.email.toLowerCase()))
    if (!user) throw new ToolError('unknown_owner', `no person of the hub with the e-mail ${owner.email}`)
    return { kind: 'user', id: user.id }
  }
  return {
    updateWorkItem: (input, actor) =>
      told(async () => {
        const before = await workItemState(db, input.entity, input.id)
        if (!before) throw new ToolError('not_found', `no ${input.entity} ${input.id}`)
        const owner = input.owner === undefined ? undefined : await ownerOf(input.owner)
        // The owner is checked before the status moves: a refused owner leaves nothing half done.
        if (owner !== undefined) await ownerColumnsFor(db, owner)
        return {
          title: before.title,
          before: { status: before.status, owner: before.owner },
          after: await applyChange(db, input, owner, { status: before.status, owner: before.owner }, actor),
        }
      }),
    restoreWorkItem: (input, actor) =>
      told(() => restoreWorkItem(db, input.entity, input.id, { before: input.before, after: input.after }, actor)),
    answerRecord: (input, actor) =>
      told(async () => {
        const before = await recordResolution(db, input.kind, input.id)
        if (!before) throw new ToolError('not_found', `no ${input.kind} ${input.id}`)
        const to = input.kind === 'negociation' ? input.outcome! : ANSWERED[input.kind]
        const record = await actOnRecord(db, REGISTRY_KIND[input.kind], input.id, { to, resolution: input.answer, actor })
        const after = await recordResolution(db, input.kind, input.id)
        const { title, ...was } = before
        return {
          title: record.title,
          before: was,
          after: { status: after!.status, resolution: after!.resolution, resolvedBy: after!.resolvedBy, resolvedAt: after!.resolvedAt },
        }
      }),
    restoreRecord: (input, actor) =>
      told(() => restoreRecord(db, input.kind, input.id, { before: input.before, after: input.after }, actor)),
    editInboxNote: input => told(async () => editInboxNote(deps.vaultDir, input)),
    restoreInboxNote: edit => told(async () => restoreInboxNote(deps.vaultDir, edit)),
    draftClientReply: (input, actor) =>
      told(async () => {
        const [message] = await db
          .select({ subject: atlasMessages.subject })
          .from(atlasMessages)
          .where(eq(atlasMessages.id, input.messageId))
        if (!message) throw new ToolError('not_found', `no Atlas message #${input.messageId}`)
        const current = await currentDraft(db, input.messageId)
        const draft = await writeReplyDraft(db, { messageId: input.messageId, body: withSignature(input.body, deps.signature), actor })
        return { draftId: draft.id, supersededId: current, subject: message.subject, link: `/hub/atlas/${input.messageId}` }
      }),
    withdrawClientReply: (input, actor) => told(() => withdrawReplyDraft(db, { id: input.draftId, restore: input.supersededId, actor })),
    attachLesson: (input, actor) => told(() => attachLessonToSpawn(db, { ...input, actor })),
    detachLesson: (input, actor) => told(() => detachLessonFromSpawn(db, { ...input, actor })),
  }
}

/**
 * Moves the status (worksites' own transition: its table, its history row naming the actor),
 * then the owner. The owner was checked before; should its assignment still fail, the status is
 * put back so the run leaves nothing half done.
 */
async function applyChange(db: Db, input: Parameters<WritePorts['updateWorkItem']>[0], owner: Owner | undefined, before: WorkItemSnapshot, actor: string): Promise<WorkItemSnapshot> {
  const moved = input.status !== undefined && input.status !== before.status
  if (moved) await transition(db, input.entity, input.id, { to: input.status!, reason: input.reason, actor })
  if (owner !== undefined) {
    try {
      await assign(db, input.entity, input.id, owner, actor)
    }
    catch (error) {
      if (moved) await restoreWorkItem(db, input.entity, input.id, { before, after: { status: input.status!, owner: before.owner } }, actor)
      throw error
    }
  }
  const after = await workItemState(db, input.entity, input.id)
  return { status: after!.status, owner: after!.owner }
}

async function currentDraft(db: Db, messageId: number): Promise<number | null> {
  const [row] = await db.select({ id: atlasReplyDrafts.id }).from(atlasReplyDrafts).where(and(eq(atlasReplyDrafts.messageId, messageId), eq(atlasReplyDrafts.status, 'draft')))
  return row?.id ?? null
}
