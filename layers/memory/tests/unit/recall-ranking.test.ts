import { describe, expect, it } from 'vitest'
import { reciprocalRankFusion } from '../../core/recall/fusion'
import { ageInDays, scarFactor } from '../../core/recall/rerank'
import { orQuery, queryWords } from '../../core/recall/words'
import { efSearchFor } from '../../core/recall/arms'

describe('Reciprocal Rank Fusion (k = 60)', () => {
  it('scores Σ 1/(60 + rank); absent from a list counts 0 for that list', () => {
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a']])
    expect(fused.map(entry => entry.key)).toEqual(['a', 'c', 'b'])
    expect(fused[0]).toEqual({ key: 'a', ranks: [1, 2], score: 1 / 61 + 1 / 62 })
    expect(fused[1]).toEqual({ key: 'c', ranks: [3, 1], score: 1 / 63 + 1 / 61 })
    expect(fused[2]).toEqual({ key: 'b', ranks: [2, null], score: 1 / 62 })
  })

  it('breaks ties deterministically: best single rank, then the key', () => {
    expect(reciprocalRankFusion([['x', 'y'], ['y', 'x']]).map(entry => entry.key)).toEqual(['x', 'y'])
    expect(reciprocalRankFusion([['b'], ['a']]).map(entry => entry.key)).toEqual(['a', 'b'])
    expect(reciprocalRankFusion([['a', 'a', 'b']])).toEqual([{ key: 'a', ranks: [1], score: 1 / 61 }, { key: 'b', ranks: [3], score: 1 / 63 }])
    expect(reciprocalRankFusion([[], []])).toEqual([])
  })
})

describe('scar re-rank', () => {
  it('(1 + importance/10) × exp(−age/365): about ×2 fresh and critical, ×0.4 old and minor', () => {
    expect(scarFactor(10, 0)).toBe(2)
    expect(scarFactor(0, 0)).toBe(1)
    expect(scarFactor(0, 365)).toBeCloseTo(Math.exp(-1), 12)
    expect(scarFactor(1, 365)).toBeCloseTo(1.1 * Math.exp(-1), 12)
    expect(scarFactor(null, 0)).toBe(1)
    expect(scarFactor(25, 0)).toBe(2)
    expect(scarFactor(-3, 0)).toBe(1)
  })

  it('counts age in days, never negative', () => {
    const now = new Date('2026-03-10T00:00:00Z')
    expect(ageInDays(new Date('2026-03-08T12:00:00Z'), now)).toBe(1.5)
    expect(ageInDays(new Date('2026-04-01T00:00:00Z'), now)).toBe(0)
  })
})

describe('lexical query words', () => {
  it('keeps words of three characters or more, lower-cased, deduplicated, accents kept', () => {
    expect(queryWords('Le déploiement a échoué : DEPLOIEMENT, échoué!')).toEqual(['déploiement', 'échoué', 'deploiement'])
    // An identifier stays whole, searched as the phrase of its parts (short parts kept).
    expect(queryWords('slug seo-technique pg_boss')).toEqual(['slug', 'seo-technique', 'pg_boss'])
    expect(orQuery(queryWords('slug seo-technique pg_boss'))).toBe('slug | (seo <-> technique) | (pg <-> boss)')
    expect(orQuery(queryWords('docs/api.v2 -- x-'))).toBe('(docs <-> api <-> v2)')
  })

  it('cannot inject a tsquery operator', () => {
    const words = queryWords("a & b | !c:* <-> 'quoted' (group) d'accord")
    expect(words).toEqual(['quoted', 'group', 'accord'])
    expect(orQuery(words)).toBe('quoted | group | accord')
    expect(orQuery(queryWords('a b c'))).toBeNull()
  })

  it('caps the number of words', () => {
    expect(queryWords(Array.from({ length: 50 }, (_, i) => `word${i}`).join(' '))).toHaveLength(32)
  })
})

describe('hnsw.ef_search', () => {
  it('covers the over-fetch, from 60 (above pgvector\'s default 40) to its maximum 1000', () => {
    expect(efSearchFor(15)).toBe(60)
    expect(efSearchFor(300)).toBe(300)
    expect(efSearchFor(5000)).toBe(1000)
  })
})
