// One chunk per document (§2.2): the document's text, truncated past a character threshold,
// and the SHA-256 fingerprint of exactly what is embedded.
import { createHash } from 'node:crypto'

/** Characters kept per chunk (finer splitting is planned for a later phase). */
export const CHUNK_MAX_CHARS = 8000

export function chunkText(text: string, max = CHUNK_MAX_CHARS): string {
  const trimmed = text.replace(/\r\n/g, '\n').trim()
  if (trimmed.length <= max) return trimmed
  let cut = max
  // Never split a surrogate pair.
  const code = trimmed.charCodeAt(cut - 1)
  if (code >= 0xD800 && code <= 0xDBFF) cut--
  return trimmed.slice(0, cut)
}

export function fingerprint(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** The text of a document from its parts (empty parts left out). */
export function joinParts(...parts: Array<string | null | undefined>): string {
  return parts.map(part => part?.trim()).filter(Boolean).join('\n\n')
}

/** pgvector's text form, refusing what the index cannot hold. */
export function vectorLiteral(vector: readonly number[], dimensions: number): string {
  if (vector.length !== dimensions) throw new Error(`expected a ${dimensions}-dimension vector, got ${vector.length}`)
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new Error('a vector holds a non-finite value')
  }
  return `[${vector.join(',')}]`
}
