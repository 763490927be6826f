import { getMessageDetail } from '#layers/atlas/core/queries'
import { MessageParams } from '#layers/atlas/core/schemas'

// One message: headers, sanitised body, attachments and verdicts, classification, audit trail, work record.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const detail = await getMessageDetail(await useDb(), id)
  if (!detail) throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  return detail
})
