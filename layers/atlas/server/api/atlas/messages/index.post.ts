import { z } from 'zod'
import { AtlasConfigError, readAtlasConfig } from '#layers/atlas/core/config'
import { composeMessage, submitMessage } from '#layers/atlas/core/submit'

const MAX_EML_CHARS = 10 * 1024 * 1024

const Body = z.union([
  z.object({
    eml: z.string().min(1).max(MAX_EML_CHARS, 'eml: over 10 MB; a larger message needs a mailbox')
      .refine(text => /^[\x21-\x39\x3B-\x7E]+:/.test(text.replace(/^\uFEFF/, '')), 'eml: an .eml starts with its headers (From:, Subject:, …)'),
  }).strict(),
  z.object({
    /** `camille@client.example` or `Camille <camille@client.example>`. */
    from: z.string().trim().max(320).refine(from => z.email().safeParse(from.replace(/^[^<]*<([^>]+)>$/, '$1').trim()).success, 'from: not an e-mail address'),
    subject: z.string().trim().min(1, 'subject: required').max(500),
    text: z.string().trim().min(1, 'text: required').max(100_000),
  }).strict(),
])

// Operator+ (server/core/access.ts): a test message handed in from the hub, pasted as an
// .eml or written in a small form. It goes through the same steps as mailbox mail (storage,
// antivirus, OCR, classification, work record) before the answer; the person is the actor.
export default defineEventHandler(async (event) => {
  const body = await readValidatedBody(event, Body.parse)
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
