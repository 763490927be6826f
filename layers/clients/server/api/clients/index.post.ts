import { createClient } from '#layers/clients/core/clients'
import { ClientCreate } from '#layers/clients/core/schemas'

export default defineEventHandler(async (event) => {
  const input = validInput(ClientCreate, await readBody(event))
  const client = clientOrThrow(await createClient(await useDb(), input, currentUser(event).email, deployChoices().names))
  setResponseStatus(event, 201)
  return { client }
})
