// Founder only: a one-time link for the person to set a new password (shown once; older links expire).
import { z } from 'zod'
import { createResetLink } from '#server/core/people'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  setResponseStatus(event, 201)
  return personAnswer(event, await createResetLink(await useDb(), id, currentUser(event).email))
})
