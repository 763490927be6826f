// The classification request: the system prompt naming the six intents and the JSON shape,
// and the user prompt — what the hub itself knows (the sender authentication verdict) above,
// then the warning and the untrusted block holding everything the mail brought (sender,
// display name, subject, attachment names, body, image text) between delimiters carrying a
// nonce drawn for this request (core/untrusted.ts).
import { clip } from '#layers/spawn/core/text'
import { defuse, untrustedBlock, untrustedLine, untrustedMarkers, type UntrustedMarkers } from '#layers/spawn/core/untrusted'
import { INTENTS } from '#layers/spawn/core/vocabulary'
import { fillPrompt, promptFile } from '#layers/ai/core/prompts/file'

/** The body is cut to this many characters before it reaches the model. */
export const BODY_LIMIT = 8000
export const OCR_LIMIT = 8000
export const BODY_LABEL = 'Body:'
export const OCR_LABEL = 'Text read in the attached images (OCR):'
export const DATA_DESCRIPTION = 'the sender, the subject, the attachment names, the body and the text read in the images'

export const SYSTEM_PROMPT = fillPrompt(promptFile(new URL('./classify.system.md', import.meta.url)), { intents: INTENTS.map(intent => `"${intent}"`).join(', ') })

export interface PromptInput {
  from: string | null
  fromName?: string | null
  subject: string
  attachments: Array<{ filename: string | null, contentType: string }>
  body: string
  ocrText?: string
  /** The hub's own verdict on the sender (trusted: computed, not read from the mail). */
  senderAuth?: string
}

export function buildClassificationPrompt(input: PromptInput, markers: UntrustedMarkers = untrustedMarkers()): string {
  const { nonce } = markers
  const attachments = input.attachments.length === 0
    ? 'none'
    : input.attachments.slice(0, 20).map(a => `${untrustedLine(a.filename ?? '(no name)', 120, nonce)} (${untrustedLine(a.contentType, 80, nonce)})`).join(', ')
  const sender = input.fromName ? `${untrustedLine(input.fromName, 200, nonce)} <${untrustedLine(input.from ?? '(unknown)', 320, nonce)}>` : untrustedLine(input.from ?? '(unknown)', 320, nonce)
  const data = [
    `Sender: ${sender}`,
    `Subject: ${untrustedLine(input.subject || '(no subject)', 300, nonce)}`,
    `Attachments: ${attachments}`,
    BODY_LABEL,
    clip(defuse(input.body, nonce), BODY_LIMIT) || '(empty body)',
  ]
  if (input.ocrText && input.ocrText.trim()) data.push(OCR_LABEL, clip(defuse(input.ocrText, nonce), OCR_LIMIT))
  return [
    'Classify the email below.',
    `Sender authentication (verified by the hub): ${input.senderAuth ?? 'not verified'}`,
    '',
    ...untrustedBlock(markers, DATA_DESCRIPTION, data),
    '',
    'Answer with the JSON object only.',
  ].join('\n')
}
