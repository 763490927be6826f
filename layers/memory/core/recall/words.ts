// The lexical arm's query: the words of the query, OR-ed, for to_tsquery with the project's
// French configuration (synedre_french: unaccent, then the French stemmer). A word is three
// characters or more; an identifier joined by - _ . or / (`add-dir`, `billing_email`) is kept
// whole and searched as a phrase of its parts, so it matches exactly and its short parts
// are not lost. Only letters and digits reach the tsquery, so no operator can be injected.

export const MIN_WORD_LENGTH = 3
export const MAX_WORDS = 32

const TOKEN = /[\p{L}\p{N}]+(?:[-_./][\p{L}\p{N}]+)*/gu
const PART = /[\p{L}\p{N}]+/gu

export function queryWords(query: string): string[] {
  const words = new Set<string>()
  for (const match of query.normalize('NFC').toLowerCase().matchAll(TOKEN)) {
    const word = match[0]
    if ([...word].length >= MIN_WORD_LENGTH) words.add(word)
    if (words.size >= MAX_WORDS) break
  }
  return [...words]
}

/** The parts of an identifier (`add-dir` → add, dir); a plain word is its own single part. */
export function wordParts(word: string): string[] {
  return [...word.matchAll(PART)].map(match => match[0])
}

/** One word as a tsquery term: itself, or the phrase of its parts. */
export function tsTerm(word: string): string {
  const parts = wordParts(word)
  return parts.length > 1 ? `(${parts.join(' <-> ')})` : parts[0] ?? ''
}

/** `a | (b <-> c) | d`, or null when no word qualifies. */
export function orQuery(words: string[]): string | null {
  const terms = words.map(tsTerm).filter(Boolean)
  return terms.length ? terms.join(' | ') : null
}
