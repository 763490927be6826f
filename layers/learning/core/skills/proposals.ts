// Skill proposals in the hub (seed §4.5): the list with its evidence, and the founder's
// decision. Promotion is the only path into the skills registry: it writes the skills row
// and records who decided, when and why, in one transaction; a proposal is decided once.
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnSkillProposals, SKILL_PROPOSAL_STATUSES, type LearnSkillProposal, type SkillProposalStatus } from '#db/schema/learn-skills'
import { skillEnablements, skillVersions, skills, type Skill } from '#db/schema/skills'

export { SKILL_PROPOSAL_STATUSES }

export class SkillProposalError extends Error {
  constructor(readonly code: 'not_found' | 'already_decided' | 'skill_exists', message: string, readonly details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'SkillProposalError'
  }
}

export const SKILL_PROPOSAL_ERROR_STATUS: Record<SkillProposalError['code'], number> = { not_found: 404, already_decided: 409, skill_exists: 409 }

export interface SkillProposalView {
  id: number
  pattern: string
  name: string
  description: string
  body: string
  tags: string[]
  evidence: LearnSkillProposal['evidence']
  status: SkillProposalStatus
  proposedBy: string
  decidedBy: string | null
  decidedAt: Date | null
  decisionNote: string | null
  createdAt: Date
}

function view(row: LearnSkillProposal): SkillProposalView {
  return {
    id: row.id,
    pattern: row.pattern,
    name: row.name,
    description: row.description,
    body: row.body,
    tags: row.tags,
    evidence: row.evidence,
    status: row.status,
    proposedBy: row.proposedBy,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    decisionNote: row.decisionNote,
    createdAt: row.createdAt,
  }
}

export async function listSkillProposals(
  db: Db,
  filters: { status?: SkillProposalStatus, limit?: number } = {},
): Promise<SkillProposalView[]> {
  const rows = await db
    .select()
    .from(learnSkillProposals)
    .where(filters.status ? eq(learnSkillProposals.status, filters.status) : undefined)
    .orderBy(desc(learnSkillProposals.createdAt), desc(learnSkillProposals.id))
    .limit(Math.min(filters.limit ?? 100, 500))
  return rows.map(view)
}

export interface ProposalStats {
  byStatus: Record<SkillProposalStatus, number>
  /** Mean time from proposal to decision, in hours (null before any decision). */
  meanHoursToDecision: number | null
  addedLastHour: number
}

export async function proposalStats(db: Db, now: Date): Promise<ProposalStats> {
  const rows = await db.execute<{ status: SkillProposalStatus, n: number }>(sql`select status, count(*)::int as n from learn_skill_proposals group by status`)
  const [figures] = await db.execute<{ mean_hours: number | null, last_hour: number }>(sql`
    select (select avg(extract(epoch from decided_at - created_at)) / 3600 from learn_skill_proposals where decided_at is not null)::float8 as mean_hours,
           (select count(*) from learn_skill_proposals where created_at > ${new Date(now.getTime() - 3_600_000).toISOString()}::timestamptz)::int as last_hour`)
  const byStatus = Object.fromEntries(SKILL_PROPOSAL_STATUSES.map(s => [s, 0])) as Record<SkillProposalStatus, number>
  for (const row of rows) byStatus[row.status] = Number(row.n)
  const mean = figures?.mean_hours
  return {
    byStatus,
    meanHoursToDecision: mean === null || mean === undefined ? null : Math.round(Number(mean) * 100) / 100,
    addedLastHour: Number(figures?.last_hour ?? 0),
  }
}

async function decide(db: Db, id: number, actor: string, note: string | null, status: 'promoted' | 'rejected', then?: (tx: Parameters<Parameters<Db['transaction']>[0]>[0], proposal: LearnSkillProposal) => Promise<Skill>): Promise<{ proposal: SkillProposalView, skill: Skill | null }> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(learnSkillProposals).where(eq(learnSkillProposals.id, id)).for('update')
    if (!current) throw new SkillProposalError('not_found', `no skill proposal ${id}`, { id })
    if (current.status !== 'pending') throw new SkillProposalError('already_decided', `proposal ${id} is already ${current.status}`, { id, status: current.status })
    const skill = then ? await then(tx, current) : null
    const [updated] = await tx.update(learnSkillProposals)
      .set({ status, decidedBy: actor, decidedAt: sql`now()`, decisionNote: note })
      .where(and(eq(learnSkillProposals.id, id), eq(learnSkillProposals.status, 'pending')))
      .returning()
    return { proposal: view(updated!), skill }
  })
}

/** The founder's promotion: the skills row (name, description, body, tags, source proposal), then the decision. */
export async function promoteSkillProposal(
  db: Db,
  input: { id: number, actor: string, note?: string, name?: string, description?: string, body?: string },
) {
  return decide(db, input.id, input.actor, input.note ?? null, 'promoted', async (tx, proposal) => {
    const name = input.name ?? proposal.name
    const [clash] = await tx.select({ id: skills.id }).from(skills).where(eq(skills.name, name))
    if (clash) throw new SkillProposalError('skill_exists', `a skill named "${name}" already exists`, { name, skillId: clash.id })
    const [skill] = await tx
      .insert(skills)
      .values({
        name,
        description: input.description ?? proposal.description,
        body: input.body ?? proposal.body,
        tags: proposal.tags,
        sourceProposalId: proposal.id,
        createdBy: input.actor,
        ownerEmail: input.actor,
        origin: 'proposal',
      })
      .returning()
    // A skill is a versioned document: the promotion is its version 1, enabled for the founder who promoted it.
    await tx
      .insert(skillVersions)
      .values({
        skillId: skill!.id,
        version: 1,
        description: skill!.description,
        body: skill!.body,
        tags: skill!.tags,
        note: `promoted from proposal ${proposal.id}`,
        createdBy: input.actor,
      })
    await tx.insert(skillEnablements).values({ skillId: skill!.id, email: input.actor, enabled: true })
    return skill!
  })
}

export async function rejectSkillProposal(db: Db, input: { id: number, actor: string, note?: string }) {
  return decide(db, input.id, input.actor, input.note ?? null, 'rejected')
}
