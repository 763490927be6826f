import { z } from 'zod'
import { getSpawn } from '#layers/spawn/core/queries'

const Params = z.object({ id: z.uuid() })

export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const spawn = await getSpawn(await useDb(), id)
  if (!spawn) throw createError({ statusCode: 404, statusMessage: `No spawn ${id}.`, data: { code: 'not_found' } })
  return spawn
})
