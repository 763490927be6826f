import { NotesQuery } from '#layers/memory/core/api'
import { listNotes } from '#layers/memory/core/vault/notes'

// The vault's indexed notes, by sub-space (inbox, permanent, …) and title / path search.
export default defineEventHandler(async (event) => {
  const { space, q } = await getValidatedQuery(event, NotesQuery.parse)
  return await listNotes(await useDb(), { space, q })
})
