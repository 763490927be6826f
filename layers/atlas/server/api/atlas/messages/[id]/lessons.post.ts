import { MessageLessonError, recordMessageLesson } from '#layers/atlas/core/message-lesson'
import { MessageLessonBody, MessageParams } from '#layers/atlas/core/schemas'
import { ManualLessonError } from '#layers/memory/core/lessons-manual'
import { LessonInputError } from '#layers/memory/core/lessons'

// Operators and founders (a write, shared/access.ts): a person records a win (victory)
// or a scar from the message page, or from one of its spawns (a failed spawn's "Record the
// scar"). The lesson carries the message's tenant, the message and the spawn, is audited in
// hub_audit and in the message's trail, and is re-indexed at once.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const body = await readValidatedBody(event, MessageLessonBody.parse)
  const user = currentUser(event)
  const db = await useDb()
  try {
    const result = await recordMessageLesson({ db, embedder: await useMemoryEmbedder('memory_sync'), log: line => console.info(line) }, id, { ...body, actor: user.email })
    setResponseStatus(event, 201)
    return { lesson: result.lesson, index: result.index }
  }
  catch (error) {
    if (error instanceof MessageLessonError) throw createError({ statusCode: error.code === 'not_found' ? 404 : 400, statusMessage: error.message, data: { code: error.code } })
    if (error instanceof ManualLessonError || error instanceof LessonInputError)
      throw createError({ statusCode: 400, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
})
