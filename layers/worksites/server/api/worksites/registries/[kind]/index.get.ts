import { z } from 'zod'
import { listRegistry } from '#layers/worksites/core/registry-actions'
import { RegistryKindSchema } from '#layers/worksites/shared/api'

const Params = z.object({ kind: RegistryKindSchema })
const Query = z.object({
  status: z.string().max(40).optional(),
  q: z.string().max(300).optional(),
  sort: z.enum(['createdAt', '-createdAt', 'updatedAt', '-updatedAt']).default('-createdAt'),
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
})

// Any signed-in role: a registry's records by status and text, paged by cursor.
export default defineEventHandler(async (event) => {
  const { kind } = await worksitesParams(event, Params)
  const query = await worksitesQuery(event, Query)
  return await worksitesCall(async () => listRegistry(await useDb(), kind, query))
})
