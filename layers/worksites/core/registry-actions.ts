// Every registry actionable (issue 16, Deliver 5): runs, questions, négociations and conseils
// listed and read with their timeline, and a person's actions on them: answer a question,
// win or lose a négociation, give advice, close a run, cancel any of them with a reason (a
// cancelled record counts against the classifier in the calibration report). Each action
// follows REGISTRY_TRANSITIONS (else 409 illegal_transition) and is recorded in the history,
// hub_audit and the trail of the message the record came from.
import { eq, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAudit } from '#db/schema/atlas'
import type { RegistryKind } from '../shared/api'
import { notFound, WorksitesError } from './errors'
import { recordHistory } from './history'
import { iso, keyset, likePattern, pageOf, type Page } from './paging'
import { WORK_TABLES } from './registries'
import { registryTimeline, type TimelineItem, type TimelineSources } from './timeline'
import { REGISTRY_STATUSES, REGISTRY_TRANSITIONS, type RegistryEntity } from './vocabulary'

export const KIND_OF: Record<RegistryKind, RegistryEntity> = { runs: 'run', questions: 'question', negociations: 'negociation', conseils: 'conseil' }
export interface RegistryRecord {
  kind: RegistryKind
  id: string
  title: string
  status: string
  /**
   * run: open|in_progress|done|cancelled · question: open|answered|cancelled · negociation: new|in_progress|won|lost|cancelled · conseil:
   * open|given|cancelled
   */
  tenantId: string | null
  body: string
  requesterEmail: string | null
  sourceMessageId: number
  messageCount: number
  /** The answer, the advice, the outcome's or the closing note. */
  resolution: string | null
  resolvedBy: string | null
  resolvedAt: string | null
  /** Why it was cancelled. */
  statusReason: string | null
  draftAnswer?: string | null
  prospectDomain?: string | null
  createdAt: string
  updatedAt: string
}
export interface RegistryDetail { record: RegistryRecord, timeline: TimelineItem[], allowedActions: string[] }

const BODY: Record<RegistryEntity, string> = { run: 'request', question: 'question', negociation: 'summary', conseil: 'request' }

function selectRecords(kind: RegistryKind, key: SQL = sql`null::text`) {
  const entity = KIND_OF[kind]
  const table = sql.raw(`work_${entity === 'run' ? 'runs' : `${entity}s`}`)
  return sql`select r.id, ${kind} as kind, r.title, r.status, r.tenant_id as "tenantId", r.${sql.raw(BODY[entity])} as body, r.requester_email as "requesterEmail",
      r.source_message_id::float8 as "sourceMessageId", r.message_count as "messageCount", r.resolution, r.resolved_by as "resolvedBy",
      ${iso(sql`r.resolved_at`)} as "resolvedAt", r.status_reason as "statusReason",
      ${entity === 'question' ? sql`r.draft_answer as "draftAnswer",` : sql``} ${entity === 'negociation' ? sql`r.prospect_domain as "prospectDomain",` : sql``}
      ${iso(sql`r.created_at`)} as "createdAt", ${iso(sql`r.updated_at`)} as "updatedAt", ${key} as "sortKey"
    from ${table} r`
}

const SORTS = { createdAt: { expr: sql`r.created_at`, type: 'timestamptz' }, updatedAt: { expr: sql`r.updated_at`, type: 'timestamptz' } } as const

export async function listRegistry(
  db: Db,
  kind: RegistryKind,
  query: { status?: string, q?: string, sort?: string, cursor?: string, limit: number },
): Promise<Page<RegistryRecord>> {
  const entity = KIND_OF[kind]
  if (query.status && !(REGISTRY_STATUSES[entity] as readonly string[]).includes(query.status)) {
    throw new WorksitesError(400, 'bad_input', `"${query.status}" is not a ${entity} status (${REGISTRY_STATUSES[entity].join(', ')}).`, {
      field: 'status',
    })
  }
  const filters = sql`${query.status ? sql`r.status = ${query.status}` : sql`true`} and ${query.q ? sql`r.title ilike ${likePattern(query.q)}` : sql`true`}`
  const page = keyset(query.sort ?? '-createdAt', SORTS, sql`r.id`, query.cursor)
  const rows = await db.execute<RegistryRecord & { sortKey: string | null } & Record<string, unknown>>(sql`
    ${selectRecords(kind, page.key)} where ${filters} and ${page.where} order by ${page.orderBy} limit ${query.limit + 1}`)
  const [count] = await db.execute<{ n: number }>(sql`select count(*)::int as n from (${selectRecords(kind)} where ${filters}) x`)
  return { ...pageOf(rows, query.limit), total: count?.n ?? 0 }
}

export async function getRegistryRecord(db: Pick<Db, 'execute'>, kind: RegistryKind, id: string): Promise<RegistryRecord | null> {
  const [row] = await db.execute<RegistryRecord & { sortKey: string | null } & Record<string, unknown>>(sql`${selectRecords(kind)} where r.id = ${id}::uuid`)
  if (!row) return null
  const { sortKey: _key, ...record } = row
  return record as RegistryRecord
}

export function allowedActions(kind: RegistryKind, status: string): string[] {
  const moves = REGISTRY_TRANSITIONS[KIND_OF[kind]][status] ?? []
  const actions: Record<RegistryKind, Array<[string, string]>> = {
    runs: [['close', 'done'], ['cancel', 'cancelled']],
    questions: [['answer', 'answered'], ['cancel', 'cancelled']],
    negociations: [['outcome', 'won'], ['cancel', 'cancelled']],
    conseils: [['advice', 'given'], ['cancel', 'cancelled']],
  }
  return actions[kind].filter(([, to]) => moves.includes(to)).map(([action]) => action)
}

export async function registryDetail(db: Db, sources: TimelineSources, kind: RegistryKind, id: string): Promise<RegistryDetail> {
  const record = await getRegistryRecord(db, kind, id)
  if (!record) throw notFound(KIND_OF[kind], id)
  return {
    record,
    timeline: await registryTimeline(db, sources, KIND_OF[kind], record),
    allowedActions: allowedActions(kind, record.status),
  }
}

export interface RegistryAction {
  to: string
  /** The answer, the advice, the note (kept as the record's resolution). */
  resolution?: string | null
  /** Why it was cancelled. */
  reason?: string
  actor: string
}

/** Moves a registry record (answer, outcome, advice, close, cancel), refusing what its status does not allow. */
export async function actOnRecord(db: Db, kind: RegistryKind, id: string, action: RegistryAction): Promise<RegistryRecord> {
  const entity = KIND_OF[kind]
  const table = WORK_TABLES[entity]
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ status: table.status, sourceMessageId: table.sourceMessageId }).from(table).where(eq(table.id, id)).for('update')
    if (!current) throw notFound(entity, id)
    const allowed = REGISTRY_TRANSITIONS[entity][current.status] ?? []
    if (!allowed.includes(action.to)) {
      throw new WorksitesError(409, 'illegal_transition', `A ${entity} cannot go from ${current.status} to ${action.to} (${allowed.length ? `allowed: ${allowed.join(', ')}` : 'it is closed'}).`, { entity, from: current.status, to: action.to, allowed: [...allowed] })
    }
    const cancelled = action.to === 'cancelled'
    await tx
      .update(table)
      .set({
        status: action.to,
        updatedAt: new Date(),
        ...(cancelled
          ? { statusReason: action.reason ?? null }
          : { resolution: action.resolution ?? null, resolvedBy: action.actor, resolvedAt: new Date() }),
      })
      .where(eq(table.id, id))
    await recordHistory(tx, { entity, id, kind: 'transition', from: current.status, to: action.to, reason: action.reason ?? null, actor: action.actor })
    if (current.sourceMessageId) {
      await tx.insert(atlasAudit).values({
        messageId: current.sourceMessageId, action: cancelled ? 'record_cancelled' : 'record_resolved', actor: action.actor,
        details: { kind: entity, recordId: id, from: current.status, to: action.to, reason: action.reason ?? undefined },
      })
    }
  })
  return (await getRegistryRecord(db, kind, id))!
}
