import { PromoteBody } from '#layers/memory/core/api'
import { promoteToPermanent } from '#layers/memory/core/vault/promote'

// Operator+ (a write, shared/access.ts): the human action that moves an inbox note to
// the permanent zone, audited in hub_audit with who did it.
export default defineEventHandler(async (event) => {
  const { path } = await readValidatedBody(event, PromoteBody.parse)
  const user = currentUser(event)
  try {
    return await promoteToPermanent({ db: await useDb(), vaultDir: useMemoryConfig().vaultDir }, { path, actor: user.email })
  }
  catch (error) {
    throwMemoryHttpError(error)
  }
})
