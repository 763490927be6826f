// The native skills registry (skills_*, issue 18 Deliver 6; the Skills issue builds on it).
// A row enters here only by a founder promoting a skill proposal in the hub
// (layers/learning/core/skill-proposals.ts): no automate writes this table.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, check, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { learnSkillProposals } from './learn-skills'

export const skills = pgTable('skills', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** The invocable name (`/name`): lowercase words joined by hyphens, unique. */
  name: text('name').notNull(),
  description: text('description').notNull(),
  /** The skill's instructions (the SKILL.md body). */
  body: text('body').notNull(),
  tags: text('tags').array().notNull().default([]),
  /** The learn_skill_proposals row it was promoted from; null for a skill written by hand. */
  sourceProposalId: bigint('source_proposal_id', { mode: 'number' }).references(() => learnSkillProposals.id, { onDelete: 'set null' }),
  /** Who created it: the founder's e-mail. */
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('skills_name_key').on(table.name),
  // One skill per proposal: a double click on "promote" cannot create two.
  uniqueIndex('skills_source_proposal_key').on(table.sourceProposalId).where(sql`source_proposal_id is not null`),
  check('skills_name_check', sql`${table.name} ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(${table.name}) <= 64`),
])

export type Skill = typeof skills.$inferSelect
