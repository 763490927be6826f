// The worksites' projects (issue 16): per tenant, with its mission brief and repository. A file
// of its own so that work.ts (the chantiers, which belong to a project) and worksites.ts (jobs
// and tasks, which name their chantier) do not import each other.
import { sql } from 'drizzle-orm'
import { check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { clients } from './clients'
import { ownerColumns } from './owner'

export const workProjects = pgTable('work_projects', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** The tenant (clients row) the project is for; null for the studio's own projects. */
  tenantId: uuid('tenant_id').references(() => clients.id),
  name: text('name').notNull(),
  /** The git repository the spawns of its tasks check out (else the tenant's, else the default). */
  repository: text('repository'),
  /** Quoted by the briefings of the spawns working on its tasks. */
  missionBrief: text('mission_brief').notNull().default(''),
  status: text('status').notNull().default('active'),
  ...ownerColumns(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('work_projects_tenant_idx').on(table.tenantId, table.updatedAt),
  check('work_projects_status_check', sql`${table.status} in ('active', 'paused', 'archived')`),
  check('work_projects_one_owner_check', sql`${table.ownerAgent} is null or ${table.ownerUserId} is null`),
])

export type WorkProject = typeof workProjects.$inferSelect
