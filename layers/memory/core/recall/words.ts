// The lexical arm's query: words of three characters or more, OR-ed, for to_tsquery with the
// French configuration. Only letters and digits survive, so no tsquery operator can be injected.

export const MIN_WORD_LENGTH = 3
export const MAX_WORDS = 32

export function queryWords(query: string): string[] {
  const words = new Set<string>()
  for (const match of query.normalize('NFC').toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0]
    if ([...word].length >= MIN_WORD_LENGTH) words.add(word)
    if (words.size >= MAX_WORDS) break
  }
  return [...words]
}

/** `a | b | c`, or null when no word qualifies. */
export function orQuery(words: string[]): string | null {
  return words.length ? words.join(' | ') : null
}
