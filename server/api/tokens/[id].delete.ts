// Revokes a token: the owner's own, or anyone's for the founder (others get 404). It stops
// working at once in this hub (server/core/token-auth.ts forgets it).
import { z } from 'zod'
import { revokeToken } from '../../core/tokens'
import { forgetToken } from '../../core/token-auth'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  const change = await revokeToken(await useDb(), id, currentUser(event))
  if (!change.ok) throw createError({ statusCode: 404, statusMessage: 'No such token.', data: { code: 'not_found' } })
  forgetToken(id)
  return { token: change.token }
})
