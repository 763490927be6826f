import { listDrafts } from '#layers/agents/core/custom/drafts'

// The person's drafts of custom agents (proposed by their personal agent), still to review.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { drafts: await listDrafts(await useDb(), user.email) }
})
