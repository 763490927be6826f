import { z } from 'zod'
import { decideProposal, DecideProposalBody } from '#layers/agents/core/instructions/proposals'

// The person applies (a new version; 409 when the document moved on since the proposal) or rejects the agent's proposal.
export default defineEventHandler(async (event) => {
  const { id, proposal } = agentParams(event, z.object({ id: z.string().uuid(), proposal: z.string().uuid() }))
  const body = await agentBody(event, DecideProposalBody)
  const user = currentUser(event)
  return await agentCall(async () => await decideProposal(await useDb(), user.email, id, proposal, body.decision))
})
