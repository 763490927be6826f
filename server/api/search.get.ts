import { SearchQuery } from '#shared/search'
import { searchHub } from '../core/search'

// The command palette (Ctrl-K): agents, Atlas messages and vault notes matching a few words.
// A read: any signed-in role (shared/access.ts), like the pages it points to.
export default defineEventHandler(async (event) => {
  const { q, limit } = await getValidatedQuery(event, SearchQuery.parse)
  return await searchHub(await useDb(), q, limit)
})
