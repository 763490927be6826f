import { requestReclassification } from '#layers/atlas/core/reclassify'
import { MessageParams } from '#layers/atlas/core/schemas'

// Operators and founders (shared/access.ts): queue a new classification, audited.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const user = currentUser(event)
  const result = await requestReclassification(await useDb(), id, user.email)
  if (!result.ok && result.code === 'not_found') throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  if (!result.ok) {
    throw createError({
      statusCode: 409,
      statusMessage: `Message #${id} is ${result.status}: only a classified, failed or blocked message can be re-classified.`,
      data: { code: 'not_reclassifiable', status: result.status },
    })
  }
  setResponseStatus(event, 202)
  return { queued: true, messageId: id, previousStatus: result.previousStatus, previousIntent: result.previousIntent }
})
