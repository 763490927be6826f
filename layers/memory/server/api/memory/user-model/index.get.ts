import { listProfiles } from '#layers/memory/core/user-model-editor'

// Any signed-in role reads the user model; the private dimension only for a founder.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { profiles: await listProfiles(await useDb(), { allowPrivate: user.role === 'founder' }), canEdit: user.role === 'founder' }
})
