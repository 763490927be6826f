// Founder only: a person's name or role; a demotion takes effect at their next request.
import { z } from 'zod'
import { updatePerson } from '#server/core/people'
import { forgetSignedInUser } from '#server/core/auth-cache'
import { PersonPatch } from '#shared/people'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  const patch = validInput(PersonPatch, await readBody(event))
  const answer = personAnswer(event, await updatePerson(await useDb(), id, patch, currentUser(event).email))
  forgetSignedInUser(id)
  return answer
})
