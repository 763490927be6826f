// The evaluation harness: runs every golden query through the recall engine in read-only
// mode (no recall counter moves), with the query embeddings computed in batches (the facade
// throttles and backs off between embedding requests), and computes the metrics.
import type { Db } from '#db/client'
import { recall } from '../recall/engine'
import type { RecallMode } from '../recall/types'
import type { Embedder } from '../vectors/embedder'
import { DEFAULT_KIND, type GoldenSet } from './golden'
import { aggregate, aggregateKinds, queryMetrics, type KindedQuery, type KindReport, type Metrics } from './metrics'

export const EMBED_BATCH = 50
/** Results fetched per query: enough for recall@k and MRR@10. */
const depth = (k: number) => Math.max(k, 10)

export interface Evaluation {
  mode: RecallMode
  k: number
  /** Over the answerable queries (every kind but unanswerable). */
  metrics: Metrics
  kinds: KindReport[]
  queries: Array<{ id: string, query: string } & KindedQuery>
}

export class EvaluationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EvaluationError'
  }
}

export async function queryVectors(embedder: Embedder, queries: string[]): Promise<Array<{ vector: number[], model: string }>> {
  const vectors: Array<{ vector: number[], model: string }> = []
  for (let start = 0; start < queries.length; start += EMBED_BATCH) {
    let result
    try {
      result = await embedder.embed(queries.slice(start, start + EMBED_BATCH), 'query')
    }
    catch (error) {
      throw new EvaluationError(`the query embeddings could not be computed (${(error as Error).message}); semantic and hybrid modes cannot be evaluated — run with a working embedding provider`)
    }
    vectors.push(...result.vectors.map(vector => ({ vector, model: result.model })))
  }
  return vectors
}

export async function evaluate(
  deps: { db: Db, embedder: Embedder },
  golden: GoldenSet,
  mode: RecallMode,
  k = golden.k,
): Promise<Evaluation> {
  const vectors
    = mode === 'lex'
      ? []
      : await queryVectors(
          deps.embedder,
          golden.queries.map(query => query.query),
        )
  const queries: Evaluation['queries'] = []
  for (const [index, item] of golden.queries.entries()) {
    const response = await recall(
      { db: deps.db, embedder: deps.embedder },
      {
        query: item.query,
        k: depth(k),
        mode,
        readOnly: true,
        queryVector: vectors[index],
      },
    )
    queries.push({
      id: item.id ?? `q${index + 1}`,
      query: item.query,
      kind: item.kind ?? DEFAULT_KIND,
      rejected: response.lowConfidence,
      ...queryMetrics(item.expected, response.hits, k),
    })
  }
  return {
    mode,
    k,
    metrics: aggregate(queries.filter(query => query.kind !== 'unanswerable')),
    kinds: aggregateKinds(queries, 'unanswerable'),
    queries,
  }
}
