// The memory's collaborators of a spawn worker: the embedder (briefing recall, immediate
// re-indexing of lessons) and the importance scorer, both on the AI facade built from the
// worker's environment unless the caller gave its own (tests, the bench). The facade is built
// once per worker; the embedder is made per tenant, so that a spawn's embedding calls are
// recorded in the ledger as its tenant's (the embedding provider itself is the studio's one:
// one vector index, one embedding space).
import { createAiFacade } from '#layers/ai/core/facade'
import { importanceScorer } from '#layers/memory/core/lesson-importance'
import type { ImportanceScorer } from '#layers/memory/core/lessons'
import { facadeEmbedder, type Embedder } from '#layers/memory/core/vectors/embedder'
import type { WorkerDeps } from './worker-deps'

export interface SpawnMemory {
  /** The embedder for a spawn of this tenant (its slug; null: no tenant). */
  embedderFor: (tenant: string | null) => Embedder
  scoreImportance: ImportanceScorer
}

const built = new WeakMap<WorkerDeps, SpawnMemory>()

export function memoryOf(deps: WorkerDeps): SpawnMemory {
  const known = built.get(deps)
  if (known) return known
  let ai: ReturnType<typeof createAiFacade> | null = null
  const facade = () => ai ??= createAiFacade({ env: deps.env, db: deps.db, log: deps.log })
  const embedders = new Map<string | null, Embedder>()
  const memory: SpawnMemory = {
    embedderFor: (tenant) => {
      if (deps.embedder) return deps.embedder
      let embedder = embedders.get(tenant)
      if (!embedder) embedders.set(tenant, embedder = facadeEmbedder(facade(), { feature: 'memory_sync', tenant: tenant ?? undefined }))
      return embedder
    },
    scoreImportance: deps.scoreImportance ?? importanceScorer(facade()),
  }
  built.set(deps, memory)
  return memory
}
