import { GenerateBody } from '#layers/ai/core/api-schemas'

// Signed in, operator+ (a write in shared/access.ts): text generation for hub features.
export default defineEventHandler(async (event) => {
  const body = await readValidatedBody(event, GenerateBody.parse)
  const user = currentUser(event)
  try {
    return await useAiFacade().generateContent({ ...body, actor: user.email })
  }
  catch (error) {
    throwAiHttpError(error)
  }
})
