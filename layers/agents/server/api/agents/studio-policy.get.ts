import { customToolRegistry } from '#layers/agents/core/custom/delegation'
import { studioPolicyView } from '#layers/agents/core/custom/studio-policy'

// The studio policy (P3): which tools a custom agent may ever use. Anyone reads it (it explains a run's tools); founders edit it.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { ...await studioPolicyView(await useDb(), customToolRegistry()), canEdit: user.role === 'founder' }
})
