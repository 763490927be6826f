import { restoreCustomVersion } from '#layers/agents/core/custom/agents'
import { customAgentPage, VersionParams } from '#layers/agents/core/custom/api'

// Restores a version's configuration as a new version (history is never rewritten).
export default defineEventHandler(async (event) => {
  const { codename, version } = agentParams(event, VersionParams)
  const user = currentUser(event)
  return await agentCall(async () => {
    const db = await useDb()
    await restoreCustomVersion(db, user, codename, version)
    return await customAgentPage(db, user, codename)
  })
})
