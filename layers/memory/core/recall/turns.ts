// Recalls take turns on the database: at most RECALL_CONCURRENCY of them run their
// statements at once in a process (one per core by default), the others wait in arrival
// order. Past the cores, more recalls in flight only share the CPU: each one finishes later,
// the heaviest last, and the contention (buffer locks, caches, context switches) makes every
// one cost more. Measured at 100,000 chunks, 8 recalls at once on 2 cores: p95 117–128 ms
// all at once, 77–82 ms two at a time, for the same throughput (docs/memory.md, "Recall takes turns").
import { availableParallelism } from 'node:os'

export class TurnsConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TurnsConfigError'
  }
}

export interface Turns {
  /** Runs `work` when a turn is free (first come, first served); the turn is given back however it ends. */
  run: <T>(work: () => Promise<T>) => Promise<T>
  readonly limit: number
  /** Recalls waiting for a turn now. */
  readonly waiting: number
}

export function createTurns(limit: number): Turns {
  if (!Number.isInteger(limit) || limit < 1) throw new TurnsConfigError(`recall turns must be a whole number of 1 or more (got ${String(limit)})`)
  let active = 0
  const queue: Array<() => void> = []
  const release = () => {
    const next = queue.shift()
    if (next) next()
    else active--
  }
  return {
    limit,
    get waiting() {
      return queue.length
    },
    run: async (work) => {
      // A released turn passes straight to the first in line, so a newcomer never overtakes it.
      if (active < limit) active++
      else await new Promise<void>(resolve => queue.push(resolve))
      try {
        return await work()
      }
      finally {
        release()
      }
    },
  }
}

/** RECALL_CONCURRENCY, or the machine's cores. */
export function turnsLimit(env: Record<string, string | undefined>): number {
  const configured = env.RECALL_CONCURRENCY?.trim()
  if (!configured) return availableParallelism()
  const value = Number(configured)
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new TurnsConfigError(`RECALL_CONCURRENCY="${configured}" is not a whole number from 1 to 1000`)
  return value
}

const byDatabase = new WeakMap<object, Turns>()

/** The turns of one database handle, sized once, on its first recall. */
export function turnsFor(db: object, env: Record<string, string | undefined>): Turns {
  let turns = byDatabase.get(db)
  if (!turns) {
    turns = createTurns(turnsLimit(env))
    byDatabase.set(db, turns)
  }
  return turns
}
