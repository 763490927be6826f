// The owner of a worksites entity (project, chantier, job, task): an agent of the registry,
// by codename, or a hub user; at most one of the two (each table checks it). Its own file so
// that work.ts and worksites.ts both use it without importing each other eagerly.
import { uuid, varchar } from 'drizzle-orm/pg-core'
import { agents } from './agents'
import { hubUsers } from './hub'

export function ownerColumns() {
  return {
    ownerAgent: varchar('owner_agent', { length: 64 }).references(() => agents.codename, { onDelete: 'set null', onUpdate: 'cascade' }),
    ownerUserId: uuid('owner_user_id').references(() => hubUsers.id, { onDelete: 'set null' }),
  }
}
