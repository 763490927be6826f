import { importanceScorer } from '#layers/memory/core/lesson-importance'
import { recordHubLesson } from '#layers/learning/core/record'
import { LessonCreate } from '#layers/learning/shared/api'

// Operators and founders (a write, shared/access.ts): "record a win" / "record a scar".
// Answers at once; the importance is scored in the background (null until then, and left
// null for the later run when no model answers).
export default defineEventHandler(async (event) => {
  const body = await learningBody(event, LessonCreate)
  const user = currentUser(event)
  const db = await useDb()
  const recorded = await learningCall(async () => recordHubLesson({
    db, embedder: await useMemoryEmbedder('memory_sync'), scoreImportance: importanceScorer(useAiFacade()), log: line => console.info(line),
  }, { ...body, agent: body.agent || null, tenantId: body.tenantId || null, projectId: body.projectId || null, actor: user.email }))
  setResponseStatus(event, 201)
  return recorded
})
