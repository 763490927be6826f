// Founder only: a new account, with a password typed by the founder or as an invitation
// (the answer's link, shown once: the hub mails no one).
import { createPerson } from '#server/core/people'
import { PersonCreate } from '#shared/people'

export default defineEventHandler(async (event) => {
  const input = validInput(PersonCreate, await readBody(event))
  const answer = personAnswer(event, await createPerson(await useDb(), input, currentUser(event).email))
  setResponseStatus(event, 201)
  return answer
})
