import { bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

export const HUB_ROLES = ['founder', 'operator', 'viewer'] as const
export type HubRole = typeof HUB_ROLES[number]

/** People who may sign in to the hub. */
export const hubUsers = pgTable('hub_users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  role: text('role').$type<HubRole>().notNull(),
  passwordHash: text('password_hash').notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
  /** Sealed into each session cookie; bumped by sign-out and password change, so older cookies stop working. */
  sessionVersion: integer('session_version').notNull().default(1),
}, table => [
  check('hub_users_role_check', sql`${table.role} in ('founder', 'operator', 'viewer')`),
])

/** Every human action in the hub. Append-only: a trigger refuses UPDATE and DELETE. */
export const hubAudit = pgTable('hub_audit', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  actor: text('actor').notNull(),
  action: text('action').notNull(),
  target: text('target'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
}, table => [
  index('hub_audit_at_idx').on(table.at),
  // The sign-in limiter asks, at every try, whether the account signed in from this address (server/core/sign-in.ts).
  index('hub_audit_signed_in_idx').on(table.actor, table.at).where(sql`${table.action} = 'signed_in'`),
])

/**
 * Failed sign-ins of the last hour, by account and by address: the limiter counts them
 * (growing waits), hub_audit keeps the record. Old rows are pruned by the sign-in route.
 */
export const hubSignInFailures = pgTable('hub_sign_in_failures', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  email: text('email').notNull(),
  address: text('address').notNull(),
}, table => [
  index('hub_sign_in_failures_email_idx').on(table.email, table.at),
  index('hub_sign_in_failures_address_idx').on(table.address, table.at),
])

/**
 * Tries refused without being checked (the account and address were waiting), counted per
 * account, address and minute: a flood is one row a minute, not one row a try. The first
 * refusal of each minute also goes to hub_audit.
 */
export const hubSignInRefusals = pgTable('hub_sign_in_refusals', {
  email: text('email').notNull(),
  address: text('address').notNull(),
  minute: timestamp('minute', { withTimezone: true }).notNull(),
  route: text('route').notNull(),
  count: integer('count').notNull().default(1),
}, table => [primaryKey({ columns: [table.email, table.address, table.minute, table.route] })])

/**
 * Personal access tokens: machine access as their owner, limited to some domains (read or
 * write). Only the SHA-256 of the secret is kept (a 32-byte random secret needs no slow hash);
 * the prefix lets a person recognise a token without it. Revoked rows stay for the record.
 */
export const hubTokens = pgTable('hub_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => hubUsers.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  prefix: text('prefix').notNull(),
  secretHash: text('secret_hash').notNull().unique(),
  /** `<domain>:read` or `<domain>:write` (shared/tokens.ts). */
  scopes: text('scopes').array().notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('hub_tokens_user_idx').on(table.userId, table.createdAt),
])

export const ONE_TIME_LINK_KINDS = ['invitation', 'reset'] as const
export type OneTimeLinkKind = typeof ONE_TIME_LINK_KINDS[number]

/**
 * A link the founder hands to a person (the hub mails no one) to set their password: an
 * invitation for a new account, a reset for an existing one. Only the token's SHA-256 is kept;
 * a link works once, before its expiry, and a newer link for the account expires the older ones.
 */
export const hubOneTimeLinks = pgTable('hub_one_time_links', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => hubUsers.id, { onDelete: 'cascade' }),
  kind: text('kind').$type<OneTimeLinkKind>().notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
}, table => [
  index('hub_one_time_links_user_idx').on(table.userId),
  check('hub_one_time_links_kind_check', sql`${table.kind} in ('invitation', 'reset')`),
])

export type HubUser = typeof hubUsers.$inferSelect
export type HubAuditEntry = typeof hubAudit.$inferSelect
export type HubToken = typeof hubTokens.$inferSelect
export type HubOneTimeLink = typeof hubOneTimeLinks.$inferSelect
