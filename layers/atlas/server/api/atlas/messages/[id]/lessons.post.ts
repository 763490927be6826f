import { eq } from 'drizzle-orm'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { clients } from '#db/schema/clients'
import { recordAtlasAudit } from '#layers/atlas/core/audit'
import { MessageLessonBody, MessageParams } from '#layers/atlas/core/schemas'
import { ManualLessonError, recordManualLesson } from '#layers/memory/core/lessons-manual'
import { LessonInputError } from '#layers/memory/core/lessons'

// Operators and founders (a write, shared/access.ts): a person records a win (victory)
// or a scar from the message page. The lesson carries the message's tenant and id as tags,
// is audited in hub_audit and in the message's trail, and is re-indexed at once.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const body = await readValidatedBody(event, MessageLessonBody.parse)
  const user = currentUser(event)
  const db = await useDb()
  const [row] = await db.select({ id: atlasMessages.id, tenant: clients.slug, tenantId: clients.id }).from(atlasMessages)
    .leftJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .leftJoin(clients, eq(clients.id, atlasInbox.tenantId))
    .where(eq(atlasMessages.id, id))
  if (!row) throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  try {
    const result = await recordManualLesson({ db, embedder: await useMemoryEmbedder('memory_sync'), log: line => console.info(line) }, {
      ...body, agent: body.agent || null, tenantId: row.tenantId, tenantSlug: row.tenant, messageId: id, actor: user.email,
    })
    await recordAtlasAudit(db, { messageId: id, action: 'lesson_recorded', actor: user.email, details: { lessonId: result.lesson.id, kind: body.kind, title: result.lesson.title, indexed: result.index.status } })
    setResponseStatus(event, 201)
    return { lesson: result.lesson, index: result.index }
  }
  catch (error) {
    if (error instanceof ManualLessonError || error instanceof LessonInputError) throw createError({ statusCode: 400, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
})
