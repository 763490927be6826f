import { ClassifyBody, ServerParams } from '#layers/agents/core/mcp/config'
import { useMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { classifyTool } from '#layers/agents/core/mcp/store'

// Founders: a tool's class (null: unclassified, refused); the next call already follows it.
export default defineEventHandler(async (event) => {
  const { name } = agentParams(event, ServerParams)
  const body = await agentBody(event, ClassifyBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const tool = await classifyTool(await useDb(), user, name, body.tool, body.class)
    await useMcpRuntime().refresh()
    return tool
  })
})
