import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compareToBaseline, readBaseline, writeBaseline, type Baseline } from '../../core/eval/baseline'
import { GoldenError, parseGolden } from '../../core/eval/golden'
import { aggregate, matches, queryMetrics } from '../../core/eval/metrics'

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
