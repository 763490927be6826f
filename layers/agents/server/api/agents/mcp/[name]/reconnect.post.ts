import { ServerParams } from '#layers/agents/core/mcp/config'
import { useMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { assertFounder, getServer } from '#layers/agents/core/mcp/store'

// Founders: connects the server again now, its restart backoff reset, and lists its tools anew.
export default defineEventHandler(async (event) => {
  const { name } = agentParams(event, ServerParams)
  const user = currentUser(event)
  return await agentCall(async () => {
    assertFounder(user)
    const runtime = useMcpRuntime()
    const status = await runtime.manager.reconnect(name, await getServer(await useDb(), name))
    await runtime.refresh()
    return { name, status }
  })
})
