import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compareKinds, compareToBaseline, freezeKinds, readBaseline, writeBaseline, type Baseline } from '../../core/eval/baseline'
import { GoldenError, parseGolden } from '../../core/eval/golden'
import { calibrate, floorShares, suggestFloor } from '../../core/eval/floor-calibration'
import { aggregate, aggregateKinds, matches, queryMetrics, type KindReport } from '../../core/eval/metrics'
import { lowConfidenceReason } from '../../core/recall/engine'
import type { RecallHit } from '../../core/recall/types'

const hit = (sourceType: string, sourceId: string, title = '') => ({ sourceType, sourceId, title })

describe('evaluation metrics', () => {
  it('matches an expected identifier by case-insensitive substring of type:id or type:title', () => {
    expect(matches('note:permanent/RRF', hit('note', 'permanent/rrf.md'))).toBe(true)
    expect(matches('rrf', hit('note', 'permanent/rrf.md'))).toBe(true)
    expect(matches('scar:deploy without', hit('scar', '12', 'Deploy without smoke test'))).toBe(true)
    expect(matches('scar:deploy without', hit('victory', '12', 'Deploy without smoke test'))).toBe(false)
    expect(matches('agent:securite', hit('agent', 'seo-technique', 'Otlet'))).toBe(false)
  })

  it('recall@k counts every expected source (not hit@k); MRR@10 the first relevant rank; top-1 the first result', () => {
    const hits = [hit('doctrine', '1', 'Scan before opening'), hit('note', 'inbox/x.md'), hit('scar', '4', 'Deploy without smoke test')]
    expect(queryMetrics(['scar:deploy', 'drill:phishing'], hits, 5)).toEqual({ recallAtK: 0.5, reciprocalRank: 1 / 3, top1: false, found: ['scar:deploy'], missing: ['drill:phishing'], firstRelevantRank: 3 })
    expect(queryMetrics(['scar:deploy'], hits, 2)).toMatchObject({ recallAtK: 0, reciprocalRank: 1 / 3, top1: false })
    expect(queryMetrics(['doctrine:scan'], hits, 1)).toMatchObject({ recallAtK: 1, reciprocalRank: 1, top1: true })
    const eleven = Array.from({ length: 10 }, (_, i) => hit('note', `n${i}`)).concat(hit('scar', '99'))
    expect(queryMetrics(['scar:99'], eleven, 20)).toMatchObject({ recallAtK: 1, reciprocalRank: 0, firstRelevantRank: null })
    expect(queryMetrics(['x'], [], 5)).toMatchObject({ recallAtK: 0, reciprocalRank: 0, top1: false })
  })

  it('averages over the queries, rounded to four decimals', () => {
    const a = queryMetrics(['a'], [hit('a', '1')], 5)
    const b = queryMetrics(['b', 'c'], [hit('x', '1'), hit('c', '1')], 5)
    const c = queryMetrics(['z'], [hit('x', '1')], 5)
    expect(aggregate([a, b, c])).toEqual({ recall_at_k: 0.5, mrr_at_10: 0.5, top1_accuracy: 0.3333 })
  })
})

describe('golden dataset', () => {
  it('parses queries with their expected sources, k defaulting to 5', () => {
    expect(parseGolden('{"queries":[{"query":"q","expected":["scar:x"]}]}', 'g.json')).toEqual({ k: 5, queries: [{ query: 'q', expected: ['scar:x'] }] })
  })

  it.each([
    ['not json', /g\.json: not valid JSON/],
    ['{"queries":[]}', /g\.json: queries: queries: at least one/],
    ['{"queries":[{"query":"q","expected":[]}]}', /queries\.0\.expected: expected: at least one source identifier/],
    ['{"queries":[{"query":" ","expected":["a"]}]}', /queries\.0\.query: query is empty/],
    ['{"k":0,"queries":[{"query":"q","expected":["a"]}]}', /k: /],
    ['{"queries":[{"query":"q","expected":["a"],"extra":1}]}', /queries\.0: /],
  ])('refuses %s', (text, problem) => {
    expect(() => parseGolden(text, 'g.json')).toThrow(GoldenError)
    expect(() => parseGolden(text, 'g.json')).toThrow(problem)
  })
})

describe('baseline', () => {
  const root = mkdtempSync(join(tmpdir(), 'synedre-baseline-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const baseline: Baseline = { version: 1, mode: 'hybrid', k: 5, queries: 3, golden_sha256: 'a'.repeat(64), frozen_at: '2026-01-01T00:00:00.000Z', metrics: { recall_at_k: 0.9, mrr_at_10: 0.8, top1_accuracy: 0.7 } }

  it('is null when absent, round-trips when written, names the problem when broken', () => {
    const file = join(root, 'sub', 'baseline.json')
    expect(readBaseline(file)).toBeNull()
    writeBaseline(file, baseline)
    expect(readBaseline(file)).toEqual(baseline)
    writeFileSync(file, '{oops')
    expect(() => readBaseline(file)).toThrow(/baseline\.json: not valid JSON/)
    writeFileSync(file, JSON.stringify({ ...baseline, metrics: { recall_at_k: 2 } }))
    expect(() => readBaseline(file)).toThrow(/metrics\.recall_at_k/)
  })

  it('a regression is a metric more than the tolerance below its baseline', () => {
    expect(compareToBaseline({ recall_at_k: 0.86, mrr_at_10: 0.75, top1_accuracy: 0.7 }, baseline.metrics)).toEqual([])
    expect(compareToBaseline({ recall_at_k: 0.85, mrr_at_10: 0.8, top1_accuracy: 0.7 }, baseline.metrics)).toEqual([])
    expect(compareToBaseline({ recall_at_k: 0.84, mrr_at_10: 0.8, top1_accuracy: 0.6 }, baseline.metrics)).toEqual([
      { metric: 'recall_at_k', baseline: 0.9, current: 0.84, delta: -0.06 },
      { metric: 'top1_accuracy', baseline: 0.7, current: 0.6, delta: -0.1 },
    ])
    expect(compareToBaseline({ recall_at_k: 0.89, mrr_at_10: 0.8, top1_accuracy: 0.7 }, baseline.metrics, 0)).toHaveLength(1)
    expect(() => compareToBaseline(baseline.metrics, baseline.metrics, -1)).toThrow(/tolerance must be between 0 and 1/)
  })
})

describe('kinds of query', () => {
  it('an unanswerable query expects nothing; every other kind expects a source', () => {
    expect(parseGolden('{"queries":[{"kind":"unanswerable","query":"q","expected":[]}]}', 'g.json').queries[0]).toEqual({ kind: 'unanswerable', query: 'q', expected: [] })
    expect(() => parseGolden('{"queries":[{"kind":"unanswerable","query":"q","expected":["a"]}]}', 'g.json')).toThrow(/queries\.0\.expected: expected: an unanswerable query expects no source/)
    expect(() => parseGolden('{"queries":[{"kind":"stem","query":"q","expected":[]}]}', 'g.json')).toThrow(/queries\.0\.expected: expected: at least one source identifier/)
    expect(() => parseGolden('{"queries":[{"kind":"rhyme","query":"q","expected":["a"]}]}', 'g.json')).toThrow(/queries\.0\.kind: /)
  })

  it('reports each kind apart: the answerable ones by recall@k, MRR and top-1, the unanswerable one by the share rejected', () => {
    const answered = (kind: string, found: boolean) => ({ kind, rejected: false, ...queryMetrics(['a'], [hit(found ? 'a' : 'x', '1')], 5) })
    const none = (rejected: boolean) => ({ kind: 'unanswerable', rejected, ...queryMetrics([], [], 5) })
    expect(aggregateKinds([answered('stem', true), none(true), answered('stem', false), none(false), none(true), answered('accent', true)], 'unanswerable')).toEqual([
      { kind: 'stem', queries: 2, metrics: { recall_at_k: 0.5, mrr_at_10: 0.5, top1_accuracy: 0.5 } },
      { kind: 'unanswerable', queries: 3, metrics: { rejected: 0.6667 } },
      { kind: 'accent', queries: 1, metrics: { recall_at_k: 1, mrr_at_10: 1, top1_accuracy: 1 } },
    ])
  })

  it('a kind regresses past its own tolerance, else the gate\'s; a kind gone reads as 0', () => {
    const frozen = {
      stem: { queries: 10, metrics: { recall_at_k: 0.9 } },
      unanswerable: { queries: 10, tolerance: 0.1, metrics: { rejected: 0.9 } },
      typo: { queries: 4, metrics: { recall_at_k: 1 } },
    }
    const current: KindReport[] = [{ kind: 'stem', queries: 10, metrics: { recall_at_k: 0.8 } }, { kind: 'unanswerable', queries: 10, metrics: { rejected: 0.8 } }]
    expect(compareKinds(current, frozen, 0.05)).toEqual([
      { kind: 'stem', metric: 'recall_at_k', baseline: 0.9, current: 0.8, delta: -0.1 },
      { kind: 'typo', metric: 'recall_at_k', baseline: 1, current: 0, delta: -1 },
    ])
    expect(compareKinds(current, frozen, 0.2)).toEqual([{ kind: 'typo', metric: 'recall_at_k', baseline: 1, current: 0, delta: -1 }])
    // Freezing again keeps the tolerance a kind was given.
    const previous = { version: 3, mode: 'hybrid', k: 5, queries: 20, golden_sha256: 'a'.repeat(64), frozen_at: '', metrics: { recall_at_k: 1, mrr_at_10: 1, top1_accuracy: 1 }, kinds: frozen } satisfies Baseline
    expect(freezeKinds(current, previous)).toEqual({
      stem: { queries: 10, metrics: { recall_at_k: 0.8 } },
      unanswerable: { queries: 10, tolerance: 0.1, metrics: { rejected: 0.8 } },
    })
  })
})

describe('the relevance floor set on half the golden set, checked on the other half', () => {
  const record = (kind: string, heldBack: boolean, hits: Array<[number | null, boolean]>) => ({ id: `${kind}-${hits.length}`, kind, heldBack, hits: hits.map(([semantic, lexical]) => ({ semantic, lexical })) })
  const records = [
    record('keyword', false, [[0.3, true], [0.55, false]]),
    record('keyword', true, [[0.6, false]]),
    record('unanswerable', false, [[0.42, false], [0.2, false]]),
    record('unanswerable', false, [[0.1, false]]),
    record('unanswerable', true, [[0.47, false]]),
    record('unanswerable', true, [[0.3, false]]),
  ]

  it('counts the expected hits kept and the unanswerable questions rejected at a floor', () => {
    expect(floorShares(records, 0.4)).toEqual({ kept: 3, keptOf: 3, rejected: 2, rejectedOf: 4 })
    expect(floorShares(records.filter(item => !item.heldBack), 0.5)).toEqual({ kept: 2, keptOf: 2, rejected: 2, rejectedOf: 2 })
  })

  it('suggests the lowest floor that rejects the most of the calibration half without losing an expected hit there; the held-back half says how it generalises', () => {
    expect(suggestFloor(records, 0.4)).toBe(0.43)
    const result = calibrate('m', 0.4, records)
    expect(result.suggested).toEqual({
      floor: 0.43,
      calibration: { kept: 2, keptOf: 2, rejected: 2, rejectedOf: 2 },
      heldBack: { kept: 1, keptOf: 1, rejected: 1, rejectedOf: 2 },
    })
    // Nothing to gain: the current floor stays.
    expect(suggestFloor(records, 0.45)).toBe(0.45)
  })
})

describe('why a response has nothing relevant to say', () => {
  const flagged = { lowConfidence: true } as RecallHit
  it('names the floor\'s tests, or that nothing matched at all; null when a hit is relevant', () => {
    expect(lowConfidenceReason([{ lowConfidence: false } as RecallHit, flagged], 0, 0.4)).toBeNull()
    expect(lowConfidenceReason([flagged], 0, 0.4)).toBe('no result holds 2 of the query\'s words exactly (all of them when it has fewer) nor reaches cosine 0.4')
    expect(lowConfidenceReason([], 3, 0.4)).toMatch(/nor reaches cosine 0\.4: 3 result\(s\) below the floor dropped$/)
    expect(lowConfidenceReason([], 0, 0.4)).toBe('nothing in memory matches the query')
  })
})
