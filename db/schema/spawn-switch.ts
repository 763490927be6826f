// The spawn engine's switch as a founder turns it from the hub (issue 36, Deliver 2): one row
// per turn, the latest one holds. Who turned it, when and why stay for the record; the
// environment's ATLAS_SPAWN_DISABLED=1 still forces the engine off whatever the last row says.
import { bigserial, boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

export const spawnEngineSwitch = pgTable('spawn_engine_switch', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** true: no new spawn starts (running ones finish); false: the engine takes jobs again. */
  disabled: boolean('disabled').notNull(),
  /** The founder's e-mail, as hub_audit names actors. */
  changedBy: text('changed_by').notNull(),
  reason: text('reason'),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('spawn_engine_switch_changed_idx').on(table.changedAt)])

export type SpawnEngineSwitchRow = typeof spawnEngineSwitch.$inferSelect
