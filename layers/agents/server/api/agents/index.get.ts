import { AgentsQuery, filtersOf } from '#layers/agents/core/api'
import { listAgents } from '#layers/agents/core/registry'

// Any signed-in role: the registry, filtered by family, stored ring, active and prompt
// domain. With ?domain=… alone it is the routing query: the active agents of that domain.
export default defineEventHandler(async (event) => {
  const query = await getValidatedQuery(event, AgentsQuery.parse)
  try {
    return await listAgents(await useDb(), filtersOf(query))
  }
  catch (error) {
    throwAgentsHttpError(error)
  }
})
