// The memory's collaborators of a spawn worker: the embedder (briefing recall, immediate
// re-indexing of lessons) and the importance scorer, both on the AI facade built from the
// worker's environment unless the caller gave its own (tests, the bench). Built once per worker.
import { createAiFacade } from '#layers/ai/core/facade'
import { importanceScorer } from '#layers/memory/core/lesson-importance'
import type { ImportanceScorer } from '#layers/memory/core/lessons'
import { facadeEmbedder, type Embedder } from '#layers/memory/core/vectors/embedder'
import type { WorkerDeps } from './worker-deps'

export interface SpawnMemory {
  embedder: Embedder
  scoreImportance: ImportanceScorer
}

const built = new WeakMap<WorkerDeps, SpawnMemory>()

export function memoryOf(deps: WorkerDeps): SpawnMemory {
  const known = built.get(deps)
  if (known) return known
  let ai: ReturnType<typeof createAiFacade> | null = null
  const facade = () => ai ??= createAiFacade({ env: deps.env, db: deps.db, log: deps.log })
  const memory: SpawnMemory = {
    embedder: deps.embedder ?? facadeEmbedder(facade(), { feature: 'memory_sync' }),
    scoreImportance: deps.scoreImportance ?? importanceScorer(facade()),
  }
  built.set(deps, memory)
  return memory
}
