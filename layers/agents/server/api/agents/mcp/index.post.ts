import { ServerBody } from '#layers/agents/core/mcp/config'
import { useMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { saveServer } from '#layers/agents/core/mcp/store'

// Founders: adds a server or changes one (a disabled one is disconnected), then (re)connects it.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, ServerBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const runtime = useMcpRuntime()
    const server = await saveServer(await useDb(), user, body)
    const status = await runtime.manager.reconnect(server.name, server)
    await runtime.refresh()
    return { ...server, status }
  })
})
