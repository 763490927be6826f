// The classifier's guardrails, as code: whatever the model answers, only these decide.
//   - strict enumeration: an intent outside the six, or a confidence outside [0, 1], is rejected;
//   - confidence < 0.5 forces noise; < 0.7 writes classification_uncertain;
//   - "Fwd: [Atlas]…" (a forwarded Atlas summary) from an authenticated team member is noise
//     without any model call (anyone else's goes to the model);
//   - authenticated founder + attachments + noise → question (noise_override_founder_attachment);
//   - negociation / conseil from an authenticated contact of an active tenant → run for that
//     tenant (existing_client_guard). Privileges follow authentication (core/admission.ts).
import { clip, normaliseAddress } from '#layers/spawn/core/text'
import { isIntent, type AuditAction, type Intent } from '#layers/spawn/core/vocabulary'

export const NOISE_FLOOR = 0.5
export const UNCERTAIN_BELOW = 0.7

export interface ModelAnswer {
  intent: Intent
  confidence: number
  reasoning: string
}

export type AnswerCheck = { ok: true, answer: ModelAnswer } | { ok: false, reason: string }

/** Strict: the exact intent spelling, a JSON number in [0, 1]; anything else is refused. */
export function checkAnswer(data: unknown): AnswerCheck {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { ok: false, reason: 'the answer is not a JSON object' }
  const { intent, confidence, reasoning } = data as Record<string, unknown>
  if (!isIntent(intent)) return { ok: false, reason: `intent ${JSON.stringify(intent ?? null)?.slice(0, 80)} is not one of the six intents` }
  if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return { ok: false, reason: `confidence ${JSON.stringify(confidence ?? null)?.slice(0, 40)} is not a number` }
  if (confidence < 0 || confidence > 1) return { ok: false, reason: `confidence ${confidence} is outside [0, 1]` }
  return { ok: true, answer: { intent, confidence, reasoning: typeof reasoning === 'string' ? clip(reasoning, 2000) : '' } }
}

/** A forwarded Atlas summary: "Fwd: [Atlas] …" (also "Fw:" and the French "TR:"). */
export function isForwardedAtlasSummary(subject: string): boolean {
  return /^\s*(?:fwd?|tr)\s*:\s*\[atlas\]/i.test(subject)
}

export interface GuardrailContext {
  fromAddress: string | null
  attachmentCount: number
  founderEmails: string[]
  /** The From address passed sender authentication: founder privileges need it. */
  senderAuthenticated: boolean
  /** The active tenant the authenticated sender belongs to, if any (null when not authenticated). */
  tenant: { id: string, slug: string } | null
}

export interface GuardedClassification {
  intent: Intent
  /** The model's confidence as answered. */
  confidence: number
  reasoning: string
  modelIntent: Intent
  /** The tenant the materialised record is scoped to. */
  tenantId: string | null
  audits: Array<{ action: AuditAction, details: Record<string, unknown> }>
  forcedNoise: boolean
  uncertain: boolean
}

export function applyGuardrails(answer: ModelAnswer, context: GuardrailContext): GuardedClassification {
  const audits: GuardedClassification['audits'] = []
  let intent: Intent = answer.intent
  const forcedNoise = answer.confidence < NOISE_FLOOR && intent !== 'noise'
  if (forcedNoise) intent = 'noise'
  const uncertain = answer.confidence < UNCERTAIN_BELOW
  if (uncertain) {
    audits.push({ action: 'classification_uncertain', details: { confidence: answer.confidence, modelIntent: answer.intent, threshold: UNCERTAIN_BELOW, forcedNoise } })
  }
  const sender = normaliseAddress(context.fromAddress)
  const founder = context.senderAuthenticated && sender !== '' && context.founderEmails.includes(sender)
  if (intent === 'noise' && founder && context.attachmentCount > 0) {
    intent = 'question'
    audits.push({ action: 'noise_override_founder_attachment', details: { from: sender, attachments: context.attachmentCount, modelIntent: answer.intent, confidence: answer.confidence } })
  }
  if ((intent === 'negociation' || intent === 'conseil') && context.tenant) {
    audits.push({ action: 'existing_client_guard', details: { from: sender, tenant: context.tenant.slug, tenantId: context.tenant.id, downgradedFrom: intent } })
    intent = 'run'
  }
  return {
    intent,
    confidence: answer.confidence,
    reasoning: answer.reasoning,
    modelIntent: answer.intent,
    tenantId: context.tenant?.id ?? null,
    audits,
    forcedNoise,
    uncertain,
  }
}
