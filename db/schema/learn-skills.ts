// Skill proposals (issue 18 Deliver 6, seed §4.5): what the weekly pattern detector found
// recurring in successful spawns, waiting for the founder's decision. Promotion writes the
// skills row; the decision (who, when, why) stays here.
import { sql } from 'drizzle-orm'
import { bigserial, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

export const SKILL_PROPOSAL_STATUSES = ['pending', 'promoted', 'rejected'] as const
export type SkillProposalStatus = typeof SKILL_PROPOSAL_STATUSES[number]

/** One spawn the pattern was seen in, with the excerpt of its events that shows it. */
export interface SkillProposalEvidence {
  spawnId: string
  excerpt: string
}

export const learnSkillProposals = pgTable('learn_skill_proposals', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** The recurring pattern, in a sentence. */
  pattern: text('pattern').notNull(),
  /** The proposed skill name (hyphenated lowercase). */
  name: text('name').notNull(),
  description: text('description').notNull(),
  /** A draft of the skill's instructions. */
  body: text('body').notNull(),
  tags: text('tags').array().notNull().default([]),
  evidence: jsonb('evidence').$type<SkillProposalEvidence[]>().notNull().default([]),
  status: text('status').$type<SkillProposalStatus>().notNull().default('pending'),
  /** Normalised name: the same pattern proposed twice while pending collides here. */
  fingerprint: text('fingerprint').notNull(),
  /** Who proposed it (the automate's name). */
  proposedBy: text('proposed_by').notNull(),
  decidedBy: text('decided_by'),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
  decisionNote: text('decision_note'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('learn_skill_proposals_status_idx').on(table.status, table.createdAt),
  // At most one pending proposal per fingerprint (a re-run of the detector inserts nothing).
  uniqueIndex('learn_skill_proposals_pending_fingerprint_key').on(table.fingerprint).where(sql`status = 'pending'`),
  check('learn_skill_proposals_status_check', sql`${table.status} in ('pending', 'promoted', 'rejected')`),
  // A decision is recorded with its author and time, and only on a decided proposal.
  check('learn_skill_proposals_decision_check', sql`(${table.status} = 'pending' and ${table.decidedBy} is null and ${table.decidedAt} is null) or (${table.status} <> 'pending' and ${table.decidedBy} is not null and ${table.decidedAt} is not null)`),
])

export type LearnSkillProposal = typeof learnSkillProposals.$inferSelect
