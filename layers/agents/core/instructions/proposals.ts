// The agent proposes, the person decides (seed 003 I6): a proposal stores the full body the
// agent suggests and a unified diff against the version it read; it never changes the
// document. Applying creates a new version — refused (409) when the document moved on since
// that base version, so a person never applies a diff made against text they already changed.
import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentInstructionProposals, agentInstructions } from '#db/schema/agent-instructions'
import { EngineError } from '../engine/errors'
import { unifiedDiff } from './diff'
import { activeInstructions, documentView, inTransaction, latestVersion, nextVersion, ownDocument, type DocumentView, type InstructionProposal } from './documents'

export const DecideProposalBody = z.object({ decision: z.enum(['apply', 'reject']) }).strict()

export interface ProposalInput {
  ownerEmail: string
  /** The document to change (default: the owner's active one). */
  instructionId?: string
  body: string
  reason: string
  runId: string | null
  proposedBy: string
}

/** Stores a proposal against the document's latest version; refused when there is nothing to change. */
export async function proposeChange(db: Db, input: ProposalInput): Promise<{ proposal: InstructionProposal, instructionId: string }> {
  let instructionId = input.instructionId
  if (!instructionId) {
    const active = await activeInstructions(db, input.ownerEmail)
    if (!active) throw new EngineError('no_active_instructions', 'the person has no active instruction document to change', 409)
    instructionId = active.id
  }
  const document = await ownDocument(db, input.ownerEmail, instructionId)
  if (document.archivedAt) throw new EngineError('archived', 'this instruction document is archived', 409)
  const base = await latestVersion(db, document.id)
  if (!base) throw new EngineError('not_found', 'the document has no version', 404)
  const diff = unifiedDiff(base.body, input.body, { from: `${document.title} (v${base.version})`, to: `${document.title} (proposed)` })
  if (diff === '') throw new EngineError('no_change', 'the proposed text is the same as the current version', 400)
  const [proposal] = await db
    .insert(agentInstructionProposals)
    .values({
      instructionId: document.id,
      baseVersion: base.version,
      body: input.body,
      diff,
      reason: input.reason,
      runId: input.runId,
      proposedBy: input.proposedBy,
    })
    .returning()
  return { proposal: proposal!, instructionId: document.id }
}

/** The undo of the proposing tool: deletes the proposal while it is still pending. */
export async function withdrawProposal(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(agentInstructionProposals).where(and(eq(agentInstructionProposals.id, id), eq(agentInstructionProposals.status, 'pending'))).returning({ id: agentInstructionProposals.id })
  return rows.length > 0
}

/** The owner applies (a new version, 409 when the document moved on) or rejects a pending proposal. */
export async function decideProposal(db: Db, email: string, instructionId: string, proposalId: string, decision: 'apply' | 'reject'): Promise<DocumentView> {
  const document = await ownDocument(db, email, instructionId)
  const [proposal] = await db
    .select()
    .from(agentInstructionProposals)
    .where(and(eq(agentInstructionProposals.id, proposalId), eq(agentInstructionProposals.instructionId, document.id)))
  if (!proposal) throw new EngineError('not_found', `no proposal ${proposalId}`, 404)
  if (proposal.status !== 'pending') throw new EngineError('already_decided', `this proposal was already ${proposal.status}`, 409)
  if (decision === 'apply' && document.archivedAt) throw new EngineError('archived', 'this document is archived: unarchive it first', 409)
  await inTransaction(db, async (tx) => {
    const decided = { decidedBy: email, decidedAt: new Date() }
    if (decision === 'reject') {
      await tx.update(agentInstructionProposals).set({ status: 'rejected', ...decided }).where(eq(agentInstructionProposals.id, proposal.id))
      return
    }
    const version = await nextVersion(tx, document.id, { body: proposal.body, author: email, note: `applied the agent's proposal${proposal.runId ? ` from run ${proposal.runId}` : ''}` }, proposal.baseVersion)
    await tx.update(agentInstructionProposals).set({ status: 'applied', appliedVersion: version, ...decided }).where(eq(agentInstructionProposals.id, proposal.id))
    await tx.update(agentInstructions).set({ updatedAt: new Date() }).where(eq(agentInstructions.id, document.id))
  })
  return await documentView(db, email, instructionId)
}
