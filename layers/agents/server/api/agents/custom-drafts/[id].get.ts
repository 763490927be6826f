import { z } from 'zod'
import { ownDraft } from '#layers/agents/core/custom/drafts'
import { customToolRegistry } from '#layers/agents/core/custom/delegation'
import { PERSONAL_ONLY_TOOLS } from '#layers/agents/core/custom/access'

const Params = z.object({ id: z.string().uuid() })

// One draft to review, with the tools the form offers (nothing is ticked for the person).
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, Params)
  const user = currentUser(event)
  return await agentCall(async () => {
    const draft = await ownDraft(await useDb(), user.email, id)
    const tools = customToolRegistry()
      .list()
      .filter(tool => !tool.allowlistOnly && !PERSONAL_ONLY_TOOLS.includes(tool.name))
      .map(tool => ({ name: tool.name, class: tool.class, description: tool.description }))
    return { draft, tools }
  })
})
