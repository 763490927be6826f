import { z } from 'zod'
import { getMessageDetail } from '#layers/atlas/core/queries'

const Params = z.object({ id: z.coerce.number().int().positive() })

// One message: headers, sanitised body, attachments and verdicts, classification, audit trail, work record.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const detail = await getMessageDetail(await useDb(), id)
  if (!detail) throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  return detail
})
