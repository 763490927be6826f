import { listLessons } from '#layers/learning/core/lessons'
import { LessonQuery } from '#layers/learning/shared/api'

// Any signed-in role: the scars and victories, newest first, with their recall record and
// the spawns they were injected into.
export default defineEventHandler(async (event) => {
  const query = await learningQuery(event, LessonQuery)
  const archived = query.archived === '1' ? 'include' : query.archived === '0' ? 'hide' : query.archived
  return {
    lessons: await listLessons(await useDb(), {
      kind: query.kind,
      agent: query.agent,
      tenantId: query.tenant,
      minImportance: query.minImportance,
      q: query.q || undefined,
      archived,
    }),
  }
})
