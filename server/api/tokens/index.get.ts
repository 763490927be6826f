// The signed-in person's own tokens; the founder may ask for everyone's (?all=true). A browser
// session only: the auth middleware refuses a token here (server/core/tokens.ts, tokenRefusal).
import { listTokens } from '../../core/tokens'
import { TokenListQuery } from '#shared/tokens'

export default defineEventHandler(async (event) => {
  const { all } = validInput(TokenListQuery, getQuery(event))
  const me = currentUser(event)
  if (all && me.role !== 'founder') {
    throw createError({ statusCode: 403, statusMessage: 'Only the founder lists everyone\'s tokens.', data: { code: 'forbidden', requiredRole: 'founder', role: me.role } })
  }
  return { items: await listTokens(await useDb(), all ? 'everyone' : { userId: me.id }) }
})
