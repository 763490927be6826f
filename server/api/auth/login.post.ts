import { LoginBody } from '../../core/schemas'

export default defineEventHandler(async (event) => {
  const credentials = await readValidatedBody(event, LoginBody.parse)
  return { user: await startSession(event, credentials) }
})
