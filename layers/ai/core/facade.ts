// The AI facade: every model call of the hub and the automates goes through one of these.
//   const ai = createAiFacade({ env: process.env, db })
//   await ai.generateContent({ prompt, feature: 'atlas_reply_draft', provider: 'mistral', model: 'mistral-small-latest' })
//   await ai.complete({ feature: 'atlas_classify', system, prompt, json: true })
//   await ai.embed({ feature: 'memory_sync', texts, inputType: 'document' })
// Dependencies are arguments (environment, database, ofetch instance, process runner,
// clock, sleep, random, log, ledger sink) so that tests and benchmarks can drive it.
import type { $Fetch } from 'ofetch'
import type { Db } from '#db/client'
import { EMBEDDING_THROTTLE_MS, type ProviderId } from './catalog'
import { complete, type CompleteResult } from './complete'
import { logOnce, type FacadeContext } from './context'
import { createCooldown, DEFAULT_COOLDOWN, type CooldownPolicy } from './cooldown'
import { embed, embeddingTarget, type EmbeddingTarget, type EmbedResult } from './embed'
import { forcedOffline, offlineFallbackAllowed, secretValues, type AiEnv } from './env'
import { generateContent, type GenerateResult } from './generate'
import { createDbLedger, noopLedger, type LedgerSink } from './ledger'
import { createProviderRegistry, type ProviderStatus } from './providers'
import { createRedactor } from './redact'
import { COMPLETION_RETRY, EMBEDDING_RETRY, type RetryPolicy } from './retry'
import { createRoutingCache } from './routing-store'
import type { CompleteRequest, EmbedRequest, GenerateRequest } from './schemas'
import { chatWithTools, type ToolChatRequest, type ToolChatResult } from './tool-chat'
import type { ProcessRunner } from './clients/process-runner'
import type { OfflineRule } from './offline/rules'

export interface AiFacadeDeps {
  env: AiEnv
  /** The database (routing table, tenants, ledger, prices), or a function opening it. */
  db?: Db | (() => Promise<Db>)
  fetch?: $Fetch
  /** Runs the agent CLI (default: child_process.spawn). */
  runner?: ProcessRunner
  /** Where ledger rows go (default: ai_consumption when there is a database, nowhere otherwise). */
  ledger?: LedgerSink
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** Receives redacted lines only. */
  log?: (line: string) => void
  cooldown?: CooldownPolicy
  retry?: { completion?: Partial<RetryPolicy>, embedding?: Partial<RetryPolicy> }
  /** Minimum gap between two embedding requests to the same provider (default 1.3 s). */
  embedThrottleMs?: number
  /** How long the routing table read is trusted (default 1 s; 0 reads it at every call). */
  routingRefreshMs?: number
  offlineRules?: Record<string, OfflineRule>
}

export interface ProviderOverview extends ProviderStatus {
  coolingDown: boolean
  cooldownUntil: string | null
  recentFailures: number
}

export interface AiFacade {
  generateContent: (request: GenerateRequest) => Promise<GenerateResult>
  complete: (request: CompleteRequest) => Promise<CompleteResult>
  /** One turn of a tool-using conversation: text and/or tool calls back (the agent engine). */
  chatWithTools: (request: ToolChatRequest) => Promise<ToolChatResult>
  embed: (request: EmbedRequest) => Promise<EmbedResult>
  /**
   * Where the next embed() of this feature would go (provider, model, dimensions), without calling anything; null when nothing can embed.
   */
  embeddingTarget: (feature: string, provider?: 'auto' | ProviderId, model?: string) => Promise<EmbeddingTarget | null>
  /** Configured or not, where requests go, cooldowns — never a key. */
  providers: () => ProviderOverview[]
  /** Waits for pending ledger rows. */
  flush: () => Promise<void>
}

export function createAiFacade(deps: AiFacadeDeps): AiFacade {
  const redact = createRedactor(secretValues(deps.env))
  const write = deps.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const log = (line: string) => write(redact(line))
  const getDb: (() => Promise<Db>) | undefined = typeof deps.db === 'function' ? deps.db : deps.db ? async () => deps.db as Db : undefined
  const now = deps.now ?? Date.now
  const ctx: FacadeContext = {
    env: deps.env,
    registry: createProviderRegistry({ env: deps.env, fetch: deps.fetch, runner: deps.runner, offlineRules: deps.offlineRules }),
    ledger: deps.ledger ?? (getDb ? createDbLedger(getDb, { log }) : noopLedger),
    cooldown: createCooldown(deps.cooldown ?? DEFAULT_COOLDOWN, now),
    now,
    sleep: deps.sleep ?? (ms => new Promise(resolve => setTimeout(resolve, ms))),
    random: deps.random ?? Math.random,
    log,
    redact,
    db: async () => {
      if (!getDb) return undefined
      try {
        const db = await getDb()
        ctx.said.delete('db-unreachable')
        return db
      }
      catch (error) {
        // Said once per outage, not at every call.
        logOnce(ctx, 'db-unreachable', `[ai] database unreachable (${(error as Error).message}): canonical routing, no tenant preference`)
        return undefined
      }
    },
    forcedOffline: forcedOffline(deps.env),
    offlineFallback: offlineFallbackAllowed(deps.env),
    retry: {
      completion: { ...COMPLETION_RETRY, ...deps.retry?.completion },
      embedding: { ...EMBEDDING_RETRY, ...deps.retry?.embedding },
    },
    routing: createRoutingCache({ now, refreshMs: deps.routingRefreshMs }),
    embedThrottleMs: deps.embedThrottleMs ?? EMBEDDING_THROTTLE_MS,
    lastEmbedCall: new Map<ProviderId, number>(),
    said: new Set<string>(),
  }
  return {
    generateContent: request => generateContent(ctx, request),
    complete: request => complete(ctx, request),
    chatWithTools: request => chatWithTools(ctx, request),
    embed: request => embed(ctx, request),
    embeddingTarget: (feature, provider, model) => embeddingTarget(ctx, feature, provider, model),
    providers: () => {
      const cooling = new Map(ctx.cooldown.state().map(entry => [entry.provider, entry]))
      return ctx.registry.status().map((status) => {
        const state = cooling.get(status.provider)
        const coolingDown = ctx.cooldown.isCooling(status.provider)
        return {
          ...status,
          coolingDown,
          cooldownUntil: coolingDown && state?.until ? new Date(state.until).toISOString() : null,
          recentFailures: state?.failures ?? 0,
        }
      })
    },
    flush: () => ctx.ledger.flush(),
  }
}
