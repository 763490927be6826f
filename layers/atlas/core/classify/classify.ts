// Classifies one message through the AI facade (feature atlas_classify, strict JSON, 30 s),
// applies the guardrails, and writes the outcome in ONE transaction: the tracking row
// (intent, confidence, model, reasoning, tenant, status), the audit records and the
// materialised work record — none for a message that waits for a person's approval: its
// approval creates it (core/approval.ts), and a record an earlier classification left is
// cancelled. A concurrent change of the tracking row (its revision moved) rolls the whole
// write back.
import { and, eq, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client'
import { atlasInbox, type AtlasAttachment, type AtlasInboxRow, type AtlasMessage } from '#db/schema/atlas'
import type { AiFacade } from '#layers/ai/core/facade'
import { cancelRecord, isWorkKind, materialiseRecord } from '#layers/worksites/core/registries'
import { decideAdmission, senderStanding, type Admission } from '../admission'
import { recordAtlasAudit } from '../audit'
import type { ClassifierConfig } from '../config'
import { resolveTenant } from '../tenants'
import { clip } from '#layers/spawn/core/text'
import { applyGuardrails, checkAnswer, isForwardedAtlasSummary, type GuardedClassification } from './guardrails'
import { buildClassificationPrompt, SYSTEM_PROMPT } from './prompt'

export const CLASSIFY_FEATURE = 'atlas_classify'
export const FORWARD_RULE_MODEL = 'rule:fwd-atlas-summary'

export interface ClassifyDeps {
  db: Db
  ai: Pick<AiFacade, 'complete'>
  config: ClassifierConfig
  actor: string
  log: (line: string) => void
  /** Test hook: called right before the classification is committed. */
  beforeCommit?: () => Promise<void>
}

export interface ClassifyTarget {
  inbox: AtlasInboxRow
  message: AtlasMessage
  attachments: AtlasAttachment[]
  /** In memory only: never stored, never logged. */
  ocrText?: string
  /** Audit notes to add to the classified record (e.g. attachments not re-fetched). */
  notes?: string[]
}

export type ClassifyOutcome
  = | { status: 'classified' | 'awaiting_approval', intent: string, confidence: number, materialised: { kind: string, id: string, action: string } | null, admission: Admission }
    | { status: 'classification_failed', reason: string, attempts: number, flagged: boolean }
    | { status: 'stale', reason: string }

class StaleRevision extends Error {}

function modelOf(result: { provider: string, model: string, offline: boolean }): { provider: string, model: string } {
  return { provider: result.provider, model: result.model }
}

type Standing = ReturnType<typeof senderStanding>
type Materialised = { kind: string, id: string, action: string }

/** What the classification came to before anything is written: a guarded answer, or why there is none. */
interface Decision {
  guarded?: GuardedClassification
  source: { provider: string | null, model: string }
  failure?: string
  rawAnswer?: string
}

/** A forwarded Atlas summary from an authenticated team member is noise by rule: no model called. */
function forwardedSummary(standing: Standing): Decision {
  return {
    guarded: {
      intent: 'noise', confidence: 1, modelIntent: 'noise', tenantId: standing.tenant?.id ?? null, audits: [], forcedNoise: false, uncertain: false,
      reasoning: `A forwarded Atlas summary (subject starts with "Fwd: [Atlas]") from the authenticated team member ${standing.address}: noise, no model called.`,
    },
    source: { provider: null, model: FORWARD_RULE_MODEL },
  }
}

/** The model's answer, checked and put through the guardrails; a failed call or a refused answer is a failure, never a throw. */
async function askModel(deps: ClassifyDeps, target: ClassifyTarget, standing: Standing): Promise<Decision> {
  const { message, attachments } = target
  const senderAuth = message.senderAuth ? `${message.senderAuth.verdict}${message.senderAuth.domain ? ` (${message.senderAuth.domain})` : ''}${message.senderAuth.flags.length ? `; flags: ${message.senderAuth.flags.join(', ')}` : ''}` : 'not verified'
  const prompt = buildClassificationPrompt({
    from: message.fromAddress,
    fromName: message.fromName,
    subject: message.subject,
    attachments,
    body: message.textBody,
    ocrText: target.ocrText,
    senderAuth,
  })
  const decision: Decision = { source: { provider: null, model: '' } }
  try {
    // The tenant's own model (clients.config.ai) when the sender is its authenticated contact;
    // an unauthenticated From never chooses the provider (nor whose bill the call lands on).
    const result = await deps.ai.complete({
      feature: CLASSIFY_FEATURE,
      system: SYSTEM_PROMPT,
      prompt,
      json: true,
      timeoutMs: deps.config.timeoutMs,
      actor: deps.actor,
      tenant: standing.tenant?.slug,
    })
    decision.source = modelOf(result)
    decision.rawAnswer = result.content
    const checked = checkAnswer(result.data)
    if (checked.ok) {
      decision.guarded = applyGuardrails(checked.answer, {
        fromAddress: message.fromAddress,
        attachmentCount: attachments.length,
        founderEmails: deps.config.founderEmails,
        senderAuthenticated: standing.authenticated,
        tenant: standing.tenant,
      })
    }
    else {
      decision.failure = `the model's answer was refused: ${checked.reason}`
    }
  }
  catch (error) {
    decision.failure = `the model call failed: ${clip((error as Error).message, 500)}`
  }
  return decision
}

/** The failed attempt: the tracking row (retried next cycle, or flagged for a person at the cap) and its audit. */
async function recordFailure(
  tx: Tx,
  deps: ClassifyDeps,
  target: ClassifyTarget,
  decision: Decision & { failure: string },
  attempts: number,
): Promise<ClassifyOutcome> {
  const { config } = deps
  const { inbox, message } = target
  const { failure, source, rawAnswer } = decision
  const flagged = attempts >= config.maxAttempts
  const updated = await tx
    .update(atlasInbox)
    .set({
      status: 'classification_failed',
      statusReason: flagged
        ? `${failure} (attempt ${attempts} of ${config.maxAttempts}: no more retries, needs a person)`
        : `${failure} (attempt ${attempts} of ${config.maxAttempts}, retried next cycle)`,
      needsHuman: flagged,
      classifyAttempts: attempts,
      provider: source.provider,
      model: source.model || null,
      revision: sql`${atlasInbox.revision} + 1`,
      updatedAt: new Date(),
    })
    .where(and(eq(atlasInbox.id, inbox.id), eq(atlasInbox.revision, inbox.revision)))
    .returning({ id: atlasInbox.id })
  if (updated.length === 0) throw new StaleRevision()
  await recordAtlasAudit(tx, {
    messageId: message.id,
    action: 'classification_failed',
    actor: deps.actor,
    details: {
      reason: failure,
      attempt: attempts,
      maxAttempts: config.maxAttempts,
      flagged,
      provider: source.provider,
      model: source.model || null,
      answer: rawAnswer ? clip(rawAnswer, 500) : undefined,
    },
  })
  return { status: 'classification_failed' as const, reason: failure, attempts, flagged }
}

/**
 * The work record the intent calls for: the one already there is kept, or cancelled when the
 * intent changed. Nothing materialised before admission: a mail waiting for a person's approval
 * keeps its classification only, so a stranger's mail leaves no run, chantier or question
 * behind until someone approves it (approval.ts), and none at all if rejected.
 */
async function rematerialise(
  tx: Tx,
  deps: ClassifyDeps,
  target: ClassifyTarget,
  outcome: GuardedClassification,
  awaiting: boolean,
): Promise<{ materialised: Materialised | null, previous: { kind: string, id: string } | null }> {
  const { inbox, message } = target
  let materialised: Materialised | null = null
  const previous
    = inbox.materialisedKind && isWorkKind(inbox.materialisedKind) && inbox.materialisedId
      ? { kind: inbox.materialisedKind, id: inbox.materialisedId }
      : null
  if (outcome.intent !== 'noise' && isWorkKind(outcome.intent) && !awaiting) {
    if (previous && previous.kind !== outcome.intent) await cancelRecord(tx, previous.kind, previous.id)
    materialised
      = previous && previous.kind === outcome.intent
        ? { kind: previous.kind, id: previous.id, action: 'kept' }
        : await materialiseRecord(tx, { kind: outcome.intent, message, tenantId: outcome.tenantId, actor: deps.actor })
  }
  else if (previous) {
    await cancelRecord(tx, previous.kind, previous.id)
  }
  return { materialised, previous }
}

/** The classification: work record, admission, tracking row and audits. */
async function recordClassified(
  tx: Tx,
  deps: ClassifyDeps,
  target: ClassifyTarget,
  decision: Decision & { guarded: GuardedClassification },
  standing: Standing,
  attempts: number,
): Promise<ClassifyOutcome> {
  const { inbox, message } = target
  const { guarded: outcome, source } = decision
  const admission = decideAdmission(outcome.intent, standing)
  const awaiting = admission.admission === 'awaiting'
  const { materialised, previous } = await rematerialise(tx, deps, target, outcome, awaiting)
  const updated = await tx
    .update(atlasInbox)
    .set({
      status: awaiting ? 'awaiting_approval' : 'classified',
      statusReason: awaiting ? `waiting for an operator's approval: ${admission.reason}` : null,
      needsHuman: awaiting,
      admission: admission.admission,
      admissionReason: admission.reason,
      admissionBy: null,
      admissionAt: null,
      intent: outcome.intent,
      confidence: outcome.confidence,
      provider: source.provider,
      model: source.model,
      reasoning: outcome.reasoning,
      tenantId: outcome.tenantId,
      materialisedKind: materialised?.kind ?? null,
      materialisedId: materialised?.id ?? null,
      classifyAttempts: attempts,
      classifiedAt: new Date(),
      revision: sql`${atlasInbox.revision} + 1`,
      updatedAt: new Date(),
    })
    .where(and(eq(atlasInbox.id, inbox.id), eq(atlasInbox.revision, inbox.revision)))
    .returning({ id: atlasInbox.id })
  if (updated.length === 0) throw new StaleRevision()

  for (const audit of outcome.audits)
    await recordAtlasAudit(tx, { messageId: message.id, action: audit.action, actor: deps.actor, details: audit.details })
  await recordAtlasAudit(tx, {
    messageId: message.id,
    action: 'classified',
    actor: deps.actor,
    details: {
      intent: outcome.intent,
      confidence: outcome.confidence,
      modelIntent: outcome.modelIntent,
      reasoning: outcome.reasoning,
      provider: source.provider,
      model: source.model,
      tenantId: outcome.tenantId,
      forcedNoise: outcome.forcedNoise || undefined,
      uncertain: outcome.uncertain || undefined,
      notes: target.notes?.length ? target.notes : undefined,
      attempt: attempts,
      senderAuth: standing.verdict,
      admission: admission.admission ?? undefined,
    },
  })
  if (awaiting)
    await recordAtlasAudit(tx, {
      messageId: message.id,
      action: 'awaiting_approval',
      actor: deps.actor,
      details: {
        reason: admission.reason,
        intent: outcome.intent,
        sender: standing.address,
        verdict: standing.verdict,
        flags: standing.flags,
      },
    })
  if (materialised) {
    await recordAtlasAudit(tx, {
      messageId: message.id,
      action: 'materialised',
      actor: deps.actor,
      details: { ...materialised, previous: previous ?? undefined },
    })
  }
  return {
    status: awaiting ? ('awaiting_approval' as const) : ('classified' as const),
    intent: outcome.intent,
    confidence: outcome.confidence,
    materialised,
    admission,
  }
}

export async function classifyMessage(deps: ClassifyDeps, target: ClassifyTarget): Promise<ClassifyOutcome> {
  const { db, config } = deps
  const { message } = target
  // Privileges follow authentication: founder, team and tenant only for an authenticated From.
  const standing = senderStanding(message.senderAuth, message.fromAddress, config, await resolveTenant(db, message.fromAddress))
  const decision
    = standing.team && isForwardedAtlasSummary(message.subject) ? forwardedSummary(standing) : await askModel(deps, target, standing)
  if (!decision.guarded && decision.failure === undefined) decision.failure = 'no classification came out of the model call'
  const attempts = target.inbox.classifyAttempts + 1
  try {
    await deps.beforeCommit?.()
    return await db.transaction(async (tx) => {
      const { failure, guarded } = decision
      if (failure !== undefined) return await recordFailure(tx, deps, target, { ...decision, failure }, attempts)
      return await recordClassified(tx, deps, target, { ...decision, guarded: guarded! }, standing, attempts)
    })
  }
  catch (error) {
    if (error instanceof StaleRevision) {
      deps.log(`[atlas] message ${message.id}: its tracking row changed while it was being classified (re-classification requested?); left for the next cycle`)
      return { status: 'stale', reason: 'the tracking row changed meanwhile' }
    }
    throw error
  }
}
