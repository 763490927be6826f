// Founder only (server/core/access.ts): deactivating a client stops attributing mail to it.
import { z } from 'zod'
import { setClientActive } from '#layers/clients/core/clients'

const Params = z.object({ id: z.uuid() })
const Body = z.object({ active: z.boolean() }).strict()

export default defineEventHandler(async (event) => {
  const { id } = validInput(Params, getRouterParams(event))
  const { active } = validInput(Body, await readBody(event))
  return { client: clientOrThrow(await setClientActive(await useDb(), id, active, currentUser(event).email)) }
})
