// recall@k (the fraction of ALL expected sources found in the top k, averaged over the
// queries — not hit@k), MRR@10 (reciprocal rank of the first relevant result in the top 10,
// 0 when absent) and top-1 accuracy.

export interface Identified {
  sourceType: string
  sourceId: string
  title: string
}

export interface Metrics {
  recall_at_k: number
  mrr_at_10: number
  top1_accuracy: number
}

export const METRIC_NAMES = ['recall_at_k', 'mrr_at_10', 'top1_accuracy'] as const satisfies ReadonlyArray<keyof Metrics>

export function matches(expected: string, hit: Identified): boolean {
  const wanted = expected.toLowerCase()
  return `${hit.sourceType}:${hit.sourceId}`.toLowerCase().includes(wanted)
    || `${hit.sourceType}:${hit.title}`.toLowerCase().includes(wanted)
}

export interface QueryMetrics {
  recallAtK: number
  reciprocalRank: number
  top1: boolean
  found: string[]
  missing: string[]
  firstRelevantRank: number | null
}

export function queryMetrics(expected: string[], hits: Identified[], k: number): QueryMetrics {
  const topK = hits.slice(0, k)
  const found = expected.filter(item => topK.some(hit => matches(item, hit)))
  const index = hits.slice(0, 10).findIndex(hit => expected.some(item => matches(item, hit)))
  return {
    recallAtK: expected.length ? found.length / expected.length : 0,
    reciprocalRank: index >= 0 ? 1 / (index + 1) : 0,
    top1: hits.length > 0 && expected.some(item => matches(item, hits[0]!)),
    found,
    missing: expected.filter(item => !found.includes(item)),
    firstRelevantRank: index >= 0 ? index + 1 : null,
  }
}

const round = (value: number) => Math.round(value * 10_000) / 10_000

export function aggregate(perQuery: QueryMetrics[]): Metrics {
  const n = perQuery.length || 1
  return {
    recall_at_k: round(perQuery.reduce((sum, item) => sum + item.recallAtK, 0) / n),
    mrr_at_10: round(perQuery.reduce((sum, item) => sum + item.reciprocalRank, 0) / n),
    top1_accuracy: round(perQuery.filter(item => item.top1).length / n),
  }
}

/**
 * One kind's figures: recall@k, MRR@10 and top-1 for the answerable kinds; for the
 * unanswerable kind, `rejected`, the share of its queries answered "nothing relevant"
 * (no hit, or the response flagged low-confidence: recall's floor said so).
 */
export type KindMetrics = Record<string, number>

export const REJECTED = 'rejected'

export interface KindReport {
  kind: string
  queries: number
  metrics: KindMetrics
}

export interface KindedQuery extends QueryMetrics {
  kind: string
  /** The response was empty or low-confidence. */
  rejected: boolean
}

/** Each kind's figures, in the order the kinds first appear. */
export function aggregateKinds(queries: KindedQuery[], unanswerable: string): KindReport[] {
  const kinds = [...new Set(queries.map(query => query.kind))]
  return kinds.map((kind) => {
    const members = queries.filter(query => query.kind === kind)
    const metrics: KindMetrics = kind === unanswerable
      ? { [REJECTED]: round(members.filter(query => query.rejected).length / members.length) }
      : { ...aggregate(members) }
    return { kind, queries: members.length, metrics }
  })
}
