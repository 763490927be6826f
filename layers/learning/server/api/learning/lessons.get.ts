import { z } from 'zod'
import { LESSON_LIST_KINDS, listLessons } from '../../../core/lessons'

const Query = z.object({
  kind: z.enum(LESSON_LIST_KINDS).optional(),
  agent: z.string().trim().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(64).optional(),
  q: z.string().trim().max(200).optional(),
  archived: z.enum(['0', '1']).optional(),
})

// Any signed-in role: the scars and victories, newest first, with their recall record.
export default defineEventHandler(async (event) => {
  const query = await getValidatedQuery(event, Query.parse)
  return { lessons: await listLessons(await useDb(), { kind: query.kind, agent: query.agent, q: query.q || undefined, archived: query.archived === '1' }) }
})
