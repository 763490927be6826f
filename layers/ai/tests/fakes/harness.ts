// A facade wired for tests: a fake clock that sleeping advances (waits are recorded, not
// slept), a fixed random, captured log lines and an in-memory ledger.
import type { Db } from '#db/client'
import { createAiFacade, type AiFacade, type AiFacadeDeps } from '../../core/facade'
import { createMemoryLedger, type LedgerEntry, type LedgerSink } from '../../core/ledger'

export interface Harness {
  ai: AiFacade
  sleeps: number[]
  logs: string[]
  entries: LedgerEntry[]
  clock: { t: number }
}

export function harness(
  env: Record<string, string | undefined>,
  deps: Partial<AiFacadeDeps> & { db?: Db | (() => Promise<Db>), ledger?: LedgerSink } = {},
): Harness {
  const clock = { t: Date.UTC(2026, 10, 2, 9, 0, 0) }
  const sleeps: number[] = []
  const logs: string[] = []
  const memory = createMemoryLedger()
  const ai = createAiFacade({
    env,
    now: () => clock.t,
    sleep: async (ms) => {
      sleeps.push(ms)
      clock.t += ms
    },
    random: () => 0.5,
    log: line => void logs.push(line),
    ...deps,
    // With a database and no sink named, rows go to ai_consumption (the facade's default).
    ledger: 'ledger' in deps ? deps.ledger : deps.db ? undefined : memory,
  })
  return { ai, sleeps, logs, entries: memory.entries, clock }
}

/** Keys that look like real ones and are easy to search for. */
export const PLANTED_KEYS = {
  MISTRAL_API_KEY: 'mst-PLANTED-KEY-4f1c9a7e2b',
  ANTHROPIC_API_KEY: 'sk-ant-api03-PLANTED-KEY-8d2e5b1c',
  OPENAI_API_KEY: 'sk-proj-PLANTED-KEY-3a9f7c1d5e',
  VOYAGE_API_KEY: 'pa-PLANTED-KEY-6b2d8e4f1a9c7e3d',
} as const

export function plantedKeyFragments(): string[] {
  return [...Object.values(PLANTED_KEYS), 'PLANTED-KEY']
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection<E = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise
  }
  catch (error) {
    return error as E
  }
  throw new Error('expected the call to fail, it succeeded')
}
