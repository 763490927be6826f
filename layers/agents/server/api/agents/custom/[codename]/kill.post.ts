import { setKilled } from '#layers/agents/core/custom/agents'
import { CodenameParams, KillBody } from '#layers/agents/core/custom/api'

// The kill switch: on, the agent starts no new run (running ones go on); off, it may again.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, KillBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    await setKilled(await useDb(), user, codename, body.killed)
    return { codename, killed: body.killed }
  })
})
