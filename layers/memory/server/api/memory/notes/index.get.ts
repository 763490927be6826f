import { NotesQuery } from '../../../../core/api'
import { listNotes } from '../../../../core/vault/notes'

// The vault's indexed notes, by sub-space (inbox, permanent, …) and title / path search.
export default defineEventHandler(async (event) => {
  const { space, q } = await getValidatedQuery(event, NotesQuery.parse)
  return await listNotes(await useDb(), { space, q })
})
