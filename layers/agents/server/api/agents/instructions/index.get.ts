import { listDocuments } from '#layers/agents/core/instructions/documents'

// The signed-in person's instruction documents (their own only), the active one first.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  const db = await useDb()
  return { documents: await listDocuments(db, user.email) }
})
