import { NotePathQuery } from '#layers/memory/core/api'
import { getNote } from '#layers/memory/core/vault/notes'

// One note: frontmatter, body, outgoing links resolved to notes, backlinks.
export default defineEventHandler(async (event) => {
  const { path } = await getValidatedQuery(event, NotePathQuery.parse)
  const note = await getNote(await useDb(), path)
  if (!note) throw createError({ statusCode: 404, statusMessage: `No indexed note at ${path}.`, data: { code: 'not_found' } })
  return note
})
