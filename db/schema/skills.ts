// The skills library (issue 18 Deliver 6, issue 21 Deliver 1–5; seed 003 §3.3–§3.4, §13).
// A skill is a document: every save is a version row (skill_versions), support files are
// marked shareable or not, built-in skills ship as seeds (disableable, never deleted).
// Access is not activation: a person uses a skill only once enabled (skill_enablements);
// built-ins are enabled for everyone until a person disables them.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, check, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid, index } from 'drizzle-orm/pg-core'
import { learnSkillProposals } from './learn-skills'

export const SKILL_ORIGINS = ['hand', 'proposal', 'builtin', 'import', 'assistant'] as const
export const SKILL_VISIBILITIES = ['private', 'studio'] as const

export const skills = pgTable('skills', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** The invocable name (`/name`): lowercase words joined by hyphens, unique. */
  name: text('name').notNull(),
  /** What the router reads (with the name). */
  description: text('description').notNull(),
  /** The skill's instructions (the SKILL.md body). */
  body: text('body').notNull(),
  tags: text('tags').array().notNull().default([]),
  /** The learn_skill_proposals row it was promoted from; null for a skill written by hand. */
  sourceProposalId: bigint('source_proposal_id', { mode: 'number' }).references(() => learnSkillProposals.id, { onDelete: 'set null' }),
  /** Who created it: an e-mail (or `system` for a built-in). */
  createdBy: text('created_by').notNull(),
  /** The owner (may edit); null for a built-in. */
  ownerEmail: text('owner_email'),
  visibility: text('visibility', { enum: SKILL_VISIBILITIES }).notNull().default('studio'),
  origin: text('origin', { enum: SKILL_ORIGINS }).notNull().default('hand'),
  builtIn: boolean('built_in').notNull().default(false),
  /** A draft (from the personal agent's `draft_skill`) is not routed until its owner saves it. */
  draft: boolean('draft').notNull().default(false),
  /** The tools this skill may use; null = no restriction declared (never a widening: §13.7). */
  allowedTools: text('allowed_tools').array(),
  /** The current version (the latest skill_versions row). */
  version: integer('version').notNull().default(1),
  /** Fingerprint of the last SKILL.md bundle downloaded: differs from the current → "newer version". */
  exportedFingerprint: text('exported_fingerprint'),
  exportedAt: timestamp('exported_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('skills_name_key').on(table.name),
  // One skill per proposal: a double click on "promote" cannot create two.
  uniqueIndex('skills_source_proposal_key').on(table.sourceProposalId).where(sql`source_proposal_id is not null`),
  check('skills_name_check', sql`${table.name} ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(${table.name}) <= 64`),
  check('skills_visibility_check', sql`${table.visibility} in ('private', 'studio')`),
  check('skills_origin_check', sql`${table.origin} in ('hand', 'proposal', 'builtin', 'import', 'assistant')`),
])

/** Every save of a skill: nothing is lost. */
export const skillVersions = pgTable('skill_versions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  skillId: bigint('skill_id', { mode: 'number' }).notNull().references(() => skills.id, { onDelete: 'cascade' }),
  version: integer('version').notNull(),
  description: text('description').notNull(),
  body: text('body').notNull(),
  tags: text('tags').array().notNull().default([]),
  allowedTools: text('allowed_tools').array(),
  note: text('note'),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [uniqueIndex('skill_versions_skill_version_key').on(table.skillId, table.version)])

/** Support files: only shareable ones go into a SKILL.md bundle or a run's prompt. */
export const skillFiles = pgTable('skill_files', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  skillId: bigint('skill_id', { mode: 'number' }).notNull().references(() => skills.id, { onDelete: 'cascade' }),
  /** A relative path such as `checklist.md` (no `..`, no leading slash). */
  path: text('path').notNull(),
  content: text('content').notNull(),
  shareable: boolean('shareable').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('skill_files_skill_path_key').on(table.skillId, table.path),
  check('skill_files_path_check', sql`${table.path} !~ '(^/|\\.\\.)' and length(${table.path}) between 1 and 200`),
])

/** Per-person activation: access (visibility) is not activation. */
export const skillEnablements = pgTable('skill_enablements', {
  skillId: bigint('skill_id', { mode: 'number' }).notNull().references(() => skills.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  enabled: boolean('enabled').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [primaryKey({ columns: [table.skillId, table.email] })])

/** Each use of a skill by a run: the library sorts by real use. */
export const skillRuns = pgTable('skill_runs', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  skillId: bigint('skill_id', { mode: 'number' }).notNull().references(() => skills.id, { onDelete: 'cascade' }),
  runId: uuid('run_id'),
  email: text('email').notNull(),
  /** forced (`/name`), auto (above the high threshold) or model (chosen among candidates). */
  mode: text('mode', { enum: ['forced', 'auto', 'model'] }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('skill_runs_skill_idx').on(table.skillId, table.createdAt)])

export type Skill = typeof skills.$inferSelect
export type SkillVersion = typeof skillVersions.$inferSelect
export type SkillFile = typeof skillFiles.$inferSelect
