import { MessageParams } from '#layers/atlas/core/schemas'
import { messageTimeline } from '#layers/atlas/core/timeline'
import { MessageTimeline } from '#layers/atlas/core/timeline-schema'
import { databaseLoopRecords } from '#layers/spawn/core/spawn-loop-records'

// Any signed-in role: one message's story in order (received, sender verdict, antivirus,
// classification, admission, work record, spawns and iterations, deploy, QA, recap, reply
// draft, lessons), each step with who or what did it and its links. The answer is checked
// against its schema: the page never reads a step it does not know.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const db = await useDb()
  const timeline = await messageTimeline({ db, producedLessons: databaseLoopRecords(db).produced }, id)
  if (!timeline) throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  return MessageTimeline.parse(timeline)
})
