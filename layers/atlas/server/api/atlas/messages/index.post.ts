import { AtlasConfigError, readAtlasConfig } from '#layers/atlas/core/config'
import { MessageSubmitBody } from '#layers/atlas/core/schemas'
import { composeMessage, submitMessage } from '#layers/atlas/core/submit'

// Operator+ (shared/access.ts): a test message handed in from the hub, pasted as an
// .eml or written in a small form. It goes through the same steps as mailbox mail (storage,
// antivirus, OCR, classification, work record) before the answer; the person is the actor.
export default defineEventHandler(async (event) => {
  const body = await readValidatedBody(event, MessageSubmitBody.parse)
  const user = currentUser(event)
  let config
  try {
    config = readAtlasConfig(process.env)
  }
  catch (error) {
    if (error instanceof AtlasConfigError) throw createError({ statusCode: 503, statusMessage: `Atlas configuration: ${error.message}`, data: { code: 'atlas_misconfigured' } })
    throw error
  }
  const source = 'eml' in body
    ? Buffer.from(body.eml.replace(/^\uFEFF/, ''), 'utf8')
    : await composeMessage({ from: body.from, subject: body.subject, text: body.text })
  const result = await submitMessage({ db: await useDb(), ai: useAiFacade(), config, actor: user.email, log: line => console.info(line), embedder: await useMemoryEmbedder('memory_recall') }, source)
  setResponseStatus(event, result.outcome === 'duplicate' ? 200 : 201)
  return result
})
