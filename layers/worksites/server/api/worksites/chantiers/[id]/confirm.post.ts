import { z } from 'zod'
import { confirmChantier } from '#layers/worksites/core/confirm'

const Params = z.object({ id: z.uuid() })

// Operators and founders (a write): a chantier draft confirmed (draft → active) after the
// recall shown with it, audited with the person's name.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const user = currentUser(event)
  const result = await confirmChantier(await useDb(), id, user.email)
  if (!result.ok && result.code === 'not_found') throw createError({ statusCode: 404, statusMessage: `No chantier ${id}.`, data: { code: 'not_found' } })
  if (!result.ok) throw createError({ statusCode: 409, statusMessage: `The chantier is ${result.status}: only a draft is confirmed.`, data: { code: 'not_draft', status: result.status } })
  return result
})
