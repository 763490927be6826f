// A new personal access token for the signed-in person (operator or founder): its secret is in
// this answer only. A browser session only: a token cannot mint another.
import { createToken } from '../../core/tokens'
import { TokenCreate } from '#shared/tokens'

export default defineEventHandler(async (event) => {
  const input = validInput(TokenCreate, await readBody(event))
  const result = await createToken(await useDb(), currentUser(event), input)
  if (!result.ok) {
    const message = `You already hold ${result.max} live tokens: revoke one first.`
    throw createError({ statusCode: 409, statusMessage: message, data: { code: result.code, message, max: result.max } })
  }
  setResponseStatus(event, 201)
  setResponseHeader(event, 'cache-control', 'no-store')
  return result.created
})
