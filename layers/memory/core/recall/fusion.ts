// Reciprocal Rank Fusion (k = 60): score = Σ 1/(60 + rank) over the lists a document is in;
// absent from a list = 0 for that list. Ties are broken deterministically: best single rank,
// then source type and id.
import { RRF_K } from './types'

export interface Ranked {
  key: string
  /** 1-based rank per list; null when absent from that list. */
  ranks: Array<number | null>
  score: number
}

export function reciprocalRankFusion(lists: string[][], k = RRF_K): Ranked[] {
  const byKey = new Map<string, Ranked>()
  lists.forEach((list, listIndex) => {
    list.forEach((key, position) => {
      let entry = byKey.get(key)
      if (!entry) {
        entry = { key, ranks: lists.map(() => null), score: 0 }
        byKey.set(key, entry)
      }
      if (entry.ranks[listIndex] !== null) return // a key listed twice counts once, at its best rank
      entry.ranks[listIndex] = position + 1
      entry.score += 1 / (k + position + 1)
    })
  })
  const best = (entry: Ranked) => Math.min(...entry.ranks.map(rank => rank ?? Number.POSITIVE_INFINITY))
  return [...byKey.values()].sort((a, b) => b.score - a.score || best(a) - best(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}
