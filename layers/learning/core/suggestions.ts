// The suggestion feed as the hub reads it (pending first), the decision counts with the
// median time to a decision, the learning audit log, and the version the live page watches.
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnAudit, learnLessons, learnSuggestions, type LearnAuditEntry, type LearnDestination, type LearnSuggestionStatus } from '#db/schema/learn'
import { learnSkillProposals } from '#db/schema/learn-skills'

export interface SuggestionView {
  id: number
  lessonId: number
  lessonTitle: string
  lessonKind: 'scar' | 'victory'
  destination: LearnDestination
  suggestion: string
  diffBefore: string
  diffAfter: string
  status: LearnSuggestionStatus
  agent: string | null
  tenantId: string | null
  model: string | null
  createdAt: Date
  decidedAt: Date | null
  decidedBy: string | null
  appliedTarget: string | null
}

export async function listSuggestions(
  db: Db,
  filters: { status?: LearnSuggestionStatus, agent?: string, limit?: number } = {},
): Promise<SuggestionView[]> {
  const where: SQL[] = []
  if (filters.status) where.push(eq(learnSuggestions.status, filters.status))
  if (filters.agent) where.push(eq(learnSuggestions.agent, filters.agent))
  const rows = await db
    .select({ s: learnSuggestions, title: learnLessons.title, kind: learnLessons.kind })
    .from(learnSuggestions)
    .innerJoin(learnLessons, eq(learnLessons.id, learnSuggestions.lessonId))
    .where(and(...where))
    // Pending ones first (oldest first: the queue), then the decided ones, latest first.
    .orderBy(
      sql`(${learnSuggestions.status} = 'pending') desc`,
      sql`case when ${learnSuggestions.status} = 'pending' then ${learnSuggestions.createdAt} end asc`,
      desc(learnSuggestions.decidedAt),
      asc(learnSuggestions.id),
    )
    .limit(Math.min(filters.limit ?? 200, 500))
  return rows.map(({ s, title, kind }) => ({
    id: s.id,
    lessonId: s.lessonId,
    lessonTitle: title,
    lessonKind: kind === 'success' ? 'victory' : 'scar',
    destination: s.destination,
    suggestion: s.suggestion,
    diffBefore: s.diffBefore,
    diffAfter: s.diffAfter,
    status: s.status,
    agent: s.agent,
    tenantId: s.tenantId,
    model: s.model,
    createdAt: s.createdAt,
    decidedAt: s.decidedAt,
    decidedBy: s.decidedBy,
    appliedTarget: s.appliedTarget,
  }))
}

export interface SuggestionStats {
  pending: number
  /** Applied as proposed or after a modification. */
  applied: number
  modified: number
  refused: number
  /** Median seconds from proposal to decision over the decided ones; null before the first. */
  medianDecisionSeconds: number | null
}

export async function suggestionStats(db: Db): Promise<SuggestionStats> {
  const [row] = await db.select({
    pending: sql<number>`count(*) filter (where ${learnSuggestions.status} = 'pending')::int`,
    applied: sql<number>`count(*) filter (where ${learnSuggestions.status} in ('applied', 'modified'))::int`,
    modified: sql<number>`count(*) filter (where ${learnSuggestions.status} = 'modified')::int`,
    refused: sql<number>`count(*) filter (where ${learnSuggestions.status} = 'refused')::int`,
    median: sql<number | null>`percentile_cont(0.5) within group (order by extract(epoch from (${learnSuggestions.decidedAt} - ${learnSuggestions.createdAt}))) filter (where ${learnSuggestions.decidedAt} is not null)`,
  }).from(learnSuggestions)
  return {
    pending: Number(row?.pending ?? 0),
    applied: Number(row?.applied ?? 0),
    modified: Number(row?.modified ?? 0),
    refused: Number(row?.refused ?? 0),
    medianDecisionSeconds: row?.median === null || row?.median === undefined ? null : Math.round(Number(row.median)),
  }
}

export async function listAudit(
  db: Db,
  filters: { subjectKind?: string, subjectId?: string, limit?: number } = {},
): Promise<LearnAuditEntry[]> {
  const where: SQL[] = []
  if (filters.subjectKind) where.push(eq(learnAudit.subjectKind, filters.subjectKind))
  if (filters.subjectId) where.push(eq(learnAudit.subjectId, filters.subjectId))
  return db
    .select()
    .from(learnAudit)
    .where(and(...where))
    .orderBy(desc(learnAudit.at), desc(learnAudit.id))
    .limit(Math.min(filters.limit ?? 100, 500))
}

/**
 * Changes whenever a lesson is added, changed or recalled, or a suggestion or a skill proposal added or decided: the live page refreshes
 * then.
 */
export async function learningVersion(db: Db): Promise<string> {
  const [row] = await db.select({
    lessons: sql<string>`(select coalesce(max(${learnLessons.id}), 0) || ':' || coalesce(max(${learnLessons.updatedAt})::text, '') || ':' || coalesce(max(${learnLessons.lastRecalledAt})::text, '') || ':' || count(*) from ${learnLessons})`,
    suggestions: sql<string>`(select coalesce(max(${learnSuggestions.id}), 0) || ':' || coalesce(max(${learnSuggestions.decidedAt})::text, '') || ':' || count(*) filter (where ${learnSuggestions.status} = 'pending') from ${learnSuggestions})`,
    proposals: sql<string>`(select coalesce(max(${learnSkillProposals.id}), 0) || ':' || coalesce(max(${learnSkillProposals.decidedAt})::text, '') from ${learnSkillProposals})`,
  }).from(sql`(select 1) as one`)
  return `${row?.lessons ?? ''}|${row?.suggestions ?? ''}|${row?.proposals ?? ''}`
}
