// The house style of a client reply, shared by the drafting code and the hub's editor: 3 to
// 6 sentences, then the team's signature on its own last line.
export const REPLY_SENTENCES = { min: 3, max: 6 } as const

/** Sentences in a text. */
export function countSentences(text: string): number {
  return text.split(/(?<=[.!?…])\s+/).map(s => s.trim()).filter(s => /[\p{L}\p{N}]/u.test(s)).length
}

/** Sentences of a reply body, its last line (the signature) left out. */
export function replySentences(body: string): number {
  const lines = body.trim().split('\n')
  return countSentences(lines.slice(0, -1).join('\n'))
}
