// Text features the skill router reads: content words (FR and EN stop words removed), their
// light stems (a 5-character prefix, enough to join "recap"/"recaps", "réunion"/"réunions")
// and the offline embedding of what is left.
import { offlineEmbedding, words } from '#layers/ai/core/offline/embed'

const STOP = new Set(`a an and are as at be but by can could do does for from have how i in into is it its me my of on or our please the this that to up us was we what when which will with you your
au aux avec ce ces cette dans de des du elle en est et eux il je la le les leur lui ma mais me mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous peux peut faire fais fait merci stp svp`.split(/\s+/))

export const DIMENSIONS = 256

export function contentWords(text: string): string[] {
  return words(text).filter(word => !STOP.has(word) && word.length > 1)
}

export function stem(word: string): string {
  return word.length > 5 ? word.slice(0, 5) : word
}

export function stems(text: string): string[] {
  return contentWords(text).map(stem)
}

/** The unit vector of the content words (the offline embedder, reduced dimensions: fast over 1,000 skills). */
export function vectorOf(text: string): Float64Array {
  return Float64Array.from(offlineEmbedding(contentWords(text).join(' '), DIMENSIONS))
}

export function cosine(a: Float64Array, b: Float64Array): number {
  let dot = 0
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
  return dot
}
