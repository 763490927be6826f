import { z } from 'zod'
import { listDrafts } from '#layers/worksites/core/drafts'

const Query = z.object({ cursor: z.string().max(500).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) })

// Any signed-in role: the chantier drafts the classifier made, newest first, waiting for a person.
export default defineEventHandler(async (event) => {
  const query = await worksitesQuery(event, Query)
  return await worksitesCall(async () => listDrafts(await useDb(), query))
})
