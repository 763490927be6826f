// What every facade operation shares: the providers, the ledger, the cooldown, the clock,
// the sleeper and a log that redacts. Built once by createAiFacade.
import type { Db } from '#db/client'
import type { AiCallKind } from '#db/schema/ai'
import type { ProviderId } from './catalog'
import type { Cooldown } from './cooldown'
import type { LedgerSink } from './ledger'
import type { ProviderRegistry } from './providers'
import type { Redactor } from './redact'
import type { RetryPolicy } from './retry'
import type { RoutingCache } from './routing-store'
import type { AiEnv } from './env'

export interface FacadeContext {
  env: AiEnv
  registry: ProviderRegistry
  ledger: LedgerSink
  cooldown: Cooldown
  now: () => number
  sleep: (ms: number) => Promise<void>
  random: () => number
  /** Redacts, then writes. */
  log: (line: string) => void
  redact: Redactor
  /** This process's copy of the routing table (read at most once a second). */
  routing: RoutingCache
  /** The database, or undefined when there is none or it cannot be reached. */
  db: () => Promise<Db | undefined>
  forcedOffline: boolean
  offlineFallback: boolean
  retry: { completion: RetryPolicy, embedding: RetryPolicy }
  embedThrottleMs: number
  lastEmbedCall: Map<ProviderId, number>
  /** Log lines said once per process (e.g. "no provider configured"). */
  said: Set<string>
}

export interface CallMeta {
  callId: string
  kind: AiCallKind
  feature: string
  tenant: string | null
  actor: string | null
  /** The agent whose run makes the call (tool-chat only: the engine's calls). */
  agent?: string | null
  startedAt: number
}

export function logOnce(ctx: FacadeContext, key: string, line: string): void {
  if (ctx.said.has(key)) return
  ctx.said.add(key)
  ctx.log(line)
}
