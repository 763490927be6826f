import { updateClient } from '#layers/clients/core/clients'
import { ClientParams, ClientPatch } from '#layers/clients/core/schemas'

export default defineEventHandler(async (event) => {
  const { id } = validInput(ClientParams, getRouterParams(event))
  const patch = validInput(ClientPatch, await readBody(event))
  return { client: clientOrThrow(await updateClient(await useDb(), id, patch, currentUser(event).email, deployChoices().names)) }
})
