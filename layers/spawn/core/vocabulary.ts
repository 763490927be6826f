// The Atlas pipeline's fixed vocabulary (ARCHITECTURE.md, "One vocabulary for the Atlas
// pipeline"): intents, tracking statuses and audit action names, spelled as the seeds spell them.

/** The six intents the classifier may answer, and nothing else. */
export const INTENTS = ['run', 'chantier', 'question', 'noise', 'negociation', 'conseil'] as const
export type Intent = typeof INTENTS[number]

export function isIntent(value: unknown): value is Intent {
  return typeof value === 'string' && (INTENTS as readonly string[]).includes(value)
}

/** Tracking statuses, in lifecycle order (the spawn statuses belong to the spawn engine). */
export const INBOX_STATUSES = [
  'received',
  'blocked_unsafe',
  'quarantined',
  'classification_failed',
  'classified',
  'awaiting_approval',
  'rejected',
  'spawn_queued',
  'spawning',
  'deploying',
  'qa',
  'actioned',
  'escalated',
  'spawn_failed',
] as const
export type InboxStatus = typeof INBOX_STATUSES[number]

export function isInboxStatus(value: unknown): value is InboxStatus {
  return typeof value === 'string' && (INBOX_STATUSES as readonly string[]).includes(value)
}

/**
 * Statuses from which an operator may ask for a new classification (nothing spawned yet; a quarantined message needs a person in the
 * mailbox).
 */
export const RECLASSIFIABLE_STATUSES: readonly InboxStatus[] = ['classified', 'classification_failed', 'blocked_unsafe', 'awaiting_approval', 'rejected']

/** Audit actions. The seeds' names first; then the ingestion-side events of this pipeline. */
export const AUDIT_ACTIONS = [
  'classified',
  'classification_uncertain',
  'noise_override_founder_attachment',
  'existing_client_guard',
  'ocr_extracted',
  'spawn_skipped_lock_held',
  'spawn_started',
  'spawn_completed',
  'spawn_failed',
  'qa_failed',
  'respawn',
  'escalated',
  'mail_refused_external',
  // the spawn's later steps, each audited (deploy, QA pass, the final `actioned`)
  'deployed',
  'qa_passed',
  'actioned',
  // ingestion, scanning and classification outcomes that are not in the seeds' list
  'received',
  'quarantined',
  'blocked_unsafe',
  'classification_failed',
  'materialised',
  'reclassify_requested',
  'uidvalidity_changed',
  // spawn admission (core/admission.ts, core/approval.ts)
  'awaiting_approval',
  'spawn_approved',
  'spawn_rejected',
  // a person recorded a scar or a victory from the message page (issue 15)
  'lesson_recorded',
  // a person confirmed the chantier draft the message created, after its recall (issue 15)
  'chantier_confirmed',
  // a person promoted the chantier draft into a project, or rejected it with a reason (issue 16);
  // a registry record the message created was answered, decided, advised, closed or cancelled
  'chantier_promoted',
  'chantier_rejected',
  'record_resolved',
  'record_cancelled',
] as const
export type AuditAction = typeof AUDIT_ACTIONS[number]

/** The work registries a classification materialises into (noise materialises nothing). */
export const MATERIALISED_KINDS = ['run', 'chantier', 'question', 'negociation', 'conseil'] as const
export type MaterialisedKind = typeof MATERIALISED_KINDS[number]

export const ATTACHMENT_VERDICTS = ['pending', 'clean', 'infected', 'error'] as const
export type AttachmentVerdict = typeof ATTACHMENT_VERDICTS[number]
