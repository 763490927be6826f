import { createDocument, CreateInstructionBody } from '#layers/agents/core/instructions/documents'

// A new instruction document (version 1) of the signed-in person — viewers included: instructions
// are personal. It becomes the active one when asked, or when the person has none active.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, CreateInstructionBody)
  const user = currentUser(event)
  return await agentCall(async () => await createDocument(await useDb(), user.email, body))
})
