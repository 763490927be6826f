// The work registries (runs, chantier drafts, questions, négociations, conseils) as the
// Atlas classifier materialises into them. Idempotent by construction: one record per
// (message, registry) under a unique index, written with ON CONFLICT; a reply in a thread
// that already has a live run or question updates that record instead of creating one.
import { and, desc, eq, inArray, ne, notInArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasInbox, atlasMessages, atlasReplyDrafts } from '#db/schema/atlas'
import { workChantiers, workConseils, workNegociations, workQuestions, workRuns } from '#db/schema/work'

export const WORK_KINDS = ['run', 'chantier', 'question', 'negociation', 'conseil'] as const
export type WorkKind = typeof WORK_KINDS[number]

export function isWorkKind(value: unknown): value is WorkKind {
  return typeof value === 'string' && (WORK_KINDS as readonly string[]).includes(value)
}

export const WORK_TABLES = {
  run: workRuns,
  chantier: workChantiers,
  question: workQuestions,
  negociation: workNegociations,
  conseil: workConseils,
} as const

/** The status a new (or re-activated) record starts in. */
export const INITIAL_STATUS: Record<WorkKind, string> = {
  run: 'open',
  chantier: 'draft',
  question: 'open',
  negociation: 'new',
  conseil: 'open',
}

export const WORK_LABELS: Record<WorkKind, string> = {
  run: 'Run',
  chantier: 'Chantier draft',
  question: 'Question',
  negociation: 'Négociation',
  conseil: 'Conseil',
}

/**
 * Kinds a reply in the same thread updates rather than duplicates ("creation or update"). A
 * chantier too (issue 16): a thread drafts one chantier, whatever its number of messages.
 */
const THREAD_UPDATED: readonly WorkKind[] = ['run', 'question', 'chantier']
/** A record in these statuses is over: a new message of its thread starts a new one. */
const ENDED: readonly string[] = ['cancelled', 'rejected']

type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'execute'>

export interface MaterialiseInput {
  kind: WorkKind
  message: {
    id: number
    subject: string
    textBody: string
    fromAddress: string | null
    inReplyTo: string | null
    threadReferences: string[]
  }
  tenantId: string | null
  actor: string
}

export interface Materialised {
  kind: WorkKind
  id: string
  action: 'created' | 'updated' | 'reactivated'
}

const BODY_CHARS = 8000

function title(subject: string): string {
  const trimmed = subject.trim()
  return trimmed ? trimmed.slice(0, 300) : '(no subject)'
}

/** The latest prepared reply among the given messages (drafts first, then sent ones). */
export async function latestReplyDraft(tx: Tx, messageIds: number[]): Promise<{ id: number, body: string } | null> {
  if (messageIds.length === 0) return null
  const rows = await tx.select({ id: atlasReplyDrafts.id, body: atlasReplyDrafts.body })
    .from(atlasReplyDrafts)
    .where(and(inArray(atlasReplyDrafts.messageId, messageIds), ne(atlasReplyDrafts.status, 'discarded')))
    .orderBy(desc(atlasReplyDrafts.updatedAt), desc(atlasReplyDrafts.id))
    .limit(1)
  return rows[0] ?? null
}

/** Earlier messages of the same thread (by In-Reply-To and References), newest first. */
async function threadMessageIds(tx: Tx, message: MaterialiseInput['message']): Promise<number[]> {
  const ids = [...new Set([message.inReplyTo, ...message.threadReferences].filter((id): id is string => Boolean(id)))]
  if (ids.length === 0) return []
  const rows = await tx.select({ id: atlasMessages.id }).from(atlasMessages)
    .where(and(inArray(atlasMessages.messageId, ids), ne(atlasMessages.id, message.id)))
    .orderBy(desc(atlasMessages.id))
  return rows.map(row => row.id)
}

/** A live record of this kind materialised from an earlier message of the thread. */
async function threadRecord(tx: Tx, kind: WorkKind, threadIds: number[]): Promise<string | null> {
  if (threadIds.length === 0) return null
  const table = WORK_TABLES[kind]
  const rows = await tx.select({ id: table.id }).from(atlasInbox)
    .innerJoin(table, eq(table.id, atlasInbox.materialisedId))
    .where(and(inArray(atlasInbox.messageId, threadIds), eq(atlasInbox.materialisedKind, kind), notInArray(table.status, [...ENDED])))
    .orderBy(desc(atlasInbox.messageId))
    .limit(1)
  return rows[0]?.id ?? null
}

/**
 * Creates (or finds, or updates) the record for a classified message. Call inside the
 * transaction that writes the classification, so both land or neither does.
 */
export async function materialiseRecord(tx: Tx, input: MaterialiseInput): Promise<Materialised> {
  const { kind, message } = input
  const body = message.textBody.trim().slice(0, BODY_CHARS)
  const threadIds = await threadMessageIds(tx, message)
  const draft = kind === 'question' ? await latestReplyDraft(tx, [message.id, ...threadIds]) : null

  if (THREAD_UPDATED.includes(kind)) {
    const existing = await threadRecord(tx, kind, threadIds)
    if (existing) {
      const table = WORK_TABLES[kind]
      await tx.update(table).set({
        lastMessageId: message.id,
        messageCount: sql`${table.messageCount} + 1`,
        updatedAt: new Date(),
        ...(kind === 'question' && draft ? { draftAnswer: draft.body, draftId: draft.id } : {}),
      }).where(and(eq(table.id, existing), ne(table.lastMessageId, message.id)))
      return { kind, id: existing, action: 'updated' }
    }
  }

  const common = {
    sourceMessageId: message.id,
    lastMessageId: message.id,
    tenantId: input.tenantId,
    title: title(message.subject),
    requesterEmail: message.fromAddress,
    createdBy: input.actor,
  }
  // The same message again (a retried or repeated classification): a cancelled record comes
  // back as new; one a person already moved on (promoted, answered…) keeps its status.
  const reactivate = { status: sql`case when ${WORK_TABLES[kind].status} = 'cancelled' then ${INITIAL_STATUS[kind]} else ${WORK_TABLES[kind].status} end`, tenantId: input.tenantId, updatedAt: new Date() }
  let rows: Array<{ id: string, created: boolean }>
  const created = sql<boolean>`(xmax = 0)`
  switch (kind) {
    case 'run':
      rows = await tx
        .insert(workRuns)
        .values({ ...common, request: body })
        .onConflictDoUpdate({ target: workRuns.sourceMessageId, set: reactivate })
        .returning({ id: workRuns.id, created })
      break
    case 'chantier':
      rows = await tx
        .insert(workChantiers)
        .values({ ...common, brief: body })
        .onConflictDoUpdate({ target: workChantiers.sourceMessageId, set: reactivate })
        .returning({ id: workChantiers.id, created })
      break
    case 'question':
      rows = await tx
        .insert(workQuestions)
        .values({ ...common, question: body, draftAnswer: draft?.body ?? null, draftId: draft?.id ?? null })
        .onConflictDoUpdate({
          target: workQuestions.sourceMessageId,
          set: { ...reactivate, draftAnswer: draft?.body ?? null, draftId: draft?.id ?? null },
        })
        .returning({ id: workQuestions.id, created })
      break
    case 'negociation': {
      const at = (message.fromAddress ?? '').lastIndexOf('@')
      rows = await tx
        .insert(workNegociations)
        .values({ ...common, summary: body, prospectDomain: at >= 0 ? message.fromAddress!.slice(at + 1) : null })
        .onConflictDoUpdate({ target: workNegociations.sourceMessageId, set: reactivate })
        .returning({ id: workNegociations.id, created })
      break
    }
    case 'conseil':
      rows = await tx
        .insert(workConseils)
        .values({ ...common, request: body })
        .onConflictDoUpdate({ target: workConseils.sourceMessageId, set: reactivate })
        .returning({ id: workConseils.id, created })
      break
  }
  const row = rows[0]!
  return { kind, id: row.id, action: row.created ? 'created' : 'reactivated' }
}

/** Marks a record cancelled (a re-classification moved the message elsewhere). */
export async function cancelRecord(tx: Tx, kind: WorkKind, id: string): Promise<void> {
  const table = WORK_TABLES[kind]
  await tx.update(table).set({ status: 'cancelled', updatedAt: new Date() }).where(eq(table.id, id))
}

export interface WorkRecordView {
  kind: WorkKind
  id: string
  title: string
  status: string
  tenantId: string | null
  sourceMessageId: number
  lastMessageId: number
  messageCount: number
  createdAt: Date
  updatedAt: Date
  body: string
  draftAnswer?: string | null
  prospectDomain?: string | null
}

export async function getWorkRecord(db: Pick<Db, 'select'>, kind: WorkKind, id: string): Promise<WorkRecordView | null> {
  const table = WORK_TABLES[kind]
  const rows = await db.select().from(table).where(eq(table.id, id)).limit(1)
  const row = rows[0] as Record<string, unknown> | undefined
  if (!row) return null
  const body = (row.request ?? row.brief ?? row.question ?? row.summary ?? '') as string
  return {
    kind,
    id: row.id as string,
    title: row.title as string,
    status: row.status as string,
    tenantId: row.tenantId as string | null,
    sourceMessageId: row.sourceMessageId as number,
    lastMessageId: row.lastMessageId as number,
    messageCount: row.messageCount as number,
    createdAt: row.createdAt as Date,
    updatedAt: row.updatedAt as Date,
    body,
    ...(kind === 'question' ? { draftAnswer: row.draftAnswer as string | null } : {}),
    ...(kind === 'negociation' ? { prospectDomain: row.prospectDomain as string | null } : {}),
  }
}
