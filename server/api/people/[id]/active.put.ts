// Founder only: deactivating ends every session of the account at once; reactivating lets it sign in again.
import { z } from 'zod'
import { setPersonActive } from '#server/core/people'
import { forgetSignedInUser } from '#server/core/auth-cache'
import { PersonActive } from '#shared/people'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  const body = validInput(PersonActive, await readBody(event))
  const answer = personAnswer(event, await setPersonActive(await useDb(), id, body, currentUser(event).email))
  forgetSignedInUser(id)
  return answer
})
