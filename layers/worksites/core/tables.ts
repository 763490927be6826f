// Entity → table, for the code that treats the four levels alike (transitions, assignment).
import { workChantiers } from '#db/schema/work'
import { workJobs, workProjects, workTasks } from '#db/schema/worksites'
import type { Entity } from './vocabulary'

export const ENTITY_TABLES = {
  project: workProjects,
  chantier: workChantiers,
  job: workJobs,
  task: workTasks,
} as const satisfies Record<Entity, unknown>
