// Founder only (shared/access.ts): deactivating a client stops attributing mail to it.
import { setClientActive } from '#layers/clients/core/clients'
import { ClientActiveBody, ClientParams } from '#layers/clients/core/schemas'

export default defineEventHandler(async (event) => {
  const { id } = validInput(ClientParams, getRouterParams(event))
  const { active } = validInput(ClientActiveBody, await readBody(event))
  return { client: clientOrThrow(await setClientActive(await useDb(), id, active, currentUser(event).email)) }
})
