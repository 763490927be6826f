// The iterations of a worksites task (issue 16). A file of its own because it names both a task
// and the spawn attempt that wrote it: worksites.ts and atlas-spawn.ts (whose spawns name their
// task) then import in one direction only.
import { sql } from 'drizzle-orm'
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { atlasSpawns } from './atlas-spawn'
import { workTasks } from './worksites'

/**
 * One step of a task: what the agent reasoned, did and observed, and how it ended. The spawn
 * engine writes one per spawn attempt of a task (step = the attempt's number); the skill
 * detector reads the `done`/`pass` ones, the debrief all of a project's.
 */
export const workIterations = pgTable('work_iterations', {
  id: uuid('id').primaryKey().defaultRandom(),
  taskId: uuid('task_id').notNull().references(() => workTasks.id, { onDelete: 'cascade' }),
  spawnId: uuid('spawn_id').references(() => atlasSpawns.id, { onDelete: 'set null' }),
  step: integer('step').notNull(),
  reasoning: text('reasoning').notNull().default(''),
  action: text('action').notNull().default(''),
  observation: text('observation').notNull().default(''),
  outcome: text('outcome').notNull(),
  agentCodename: text('agent_codename'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('work_iterations_task_idx').on(table.taskId, table.step),
  index('work_iterations_outcome_idx').on(table.outcome, table.createdAt),
  // One iteration per spawn attempt: a worker writing it twice (a retried end) changes nothing.
  uniqueIndex('work_iterations_spawn_key').on(table.spawnId).where(sql`spawn_id is not null`),
  check('work_iterations_outcome_check', sql`${table.outcome} in ('done', 'pass', 'fail')`),
  check('work_iterations_step_check', sql`${table.step} >= 1`),
])

export type WorkIteration = typeof workIterations.$inferSelect
