import { boolean, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

/** Per-tenant configuration; `ai` picks the tenant's provider and model (the AI facade reads it). */
export interface ClientConfig {
  ai?: { provider?: string, model?: string }
  preprodUrl?: string
  /** The tenant's mission brief, injected into every spawn's briefing for it (edited in the hub). */
  missionBrief?: string
  [key: string]: unknown
}

export interface ClientContact { name?: string, email: string, role?: string }

/** Tenants: the studio's clients. */
export const clients = pgTable('clients', {
  id: uuid('id').primaryKey().defaultRandom(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  domains: text('domains').array().notNull().default([]),
  contacts: jsonb('contacts').$type<ClientContact[]>().notNull().default([]),
  active: boolean('active').notNull().default(true),
  config: jsonb('config').$type<ClientConfig>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

export type Client = typeof clients.$inferSelect
