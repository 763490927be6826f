import { describe, expect, it } from 'vitest'
import { reciprocalRankFusion } from '../../core/recall/fusion'
import { ageInDays, scarFactor } from '../../core/recall/rerank'
import { orQuery, queryWords } from '../../core/recall/words'
import { efSearchFor } from '../../core/recall/arms'
import { fuseNeighbours, LINK_DECAY, withinTime } from '../../core/recall/links'

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
    const words = queryWords('a & b | !c:* <-> \'quoted\' (group) d\'accord')
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

describe('link expansion', () => {
  const hit = (sourceType: 'note' | 'scar', sourceId: string, final: number) => ({
    rank: 0,
    sourceType,
    sourceId,
    title: sourceId,
    snippet: '',
    agent: null,
    link: null,
    lowConfidence: false,
    scores: {
      semantic: null,
      semanticRank: null,
      lexical: null,
      lexicalRank: null,
      fuzzy: false,
      lexicalWords: null,
      rrf: final,
      base: final,
      final,
      rerank: null,
    },
  })
  const neighbour = (parent: string, sourceId: string) => ({ parent, sourceId, title: sourceId, snippet: '', agent: null })

  it('places each neighbour by its parent\'s score × LINK_DECAY, marked with the parent; one with no parent among the hits is dropped', () => {
    const fused = fuseNeighbours([hit('note', 'a.md', 0.04), hit('scar', '7', 0.03), hit('note', 'b.md', 0.01)], [neighbour('a.md', 'x.md'), neighbour('gone.md', 'y.md')], id => `/n/${id}`)
    // 0.04 × 0.5 = 0.02: after the scar at 0.03, before the note at 0.01.
    expect(fused.map(item => item.sourceId)).toEqual(['a.md', '7', 'x.md', 'b.md'])
    expect(fused[2]).toMatchObject({ sourceType: 'note', link: '/n/x.md', lowConfidence: false, scores: { final: 0.04 * LINK_DECAY, linkedFrom: 'a.md', semantic: null, lexical: null } })
    expect(fused).toHaveLength(4)
  })

  it('an expansion that overruns its time or fails answers the fallback, and says so', async () => {
    const lines: string[] = []
    expect(await withinTime(new Promise(resolve => setTimeout(() => resolve(['late']), 200)), [] as string[], line => lines.push(line), 20)).toEqual([])
    expect(await withinTime(Promise.reject(new Error('boom')), [] as string[], line => lines.push(line), 20)).toEqual([])
    expect(await withinTime(Promise.resolve(['ok']), [] as string[], line => lines.push(line), 20)).toEqual(['ok'])
    expect(lines).toEqual(['[recall] the link expansion took over 20 ms: answered without it', '[recall] the link expansion failed (boom): answered without it'])
  })
})
