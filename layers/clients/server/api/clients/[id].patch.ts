import { z } from 'zod'
import { updateClient } from '#layers/clients/core/clients'
import { ClientPatch } from '#layers/clients/core/schemas'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  const patch = validInput(ClientPatch, await readBody(event))
  return { client: clientOrThrow(await updateClient(await useDb(), id, patch, currentUser(event).email, deployChoices().names)) }
})
