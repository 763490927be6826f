// Who writes the debrief (seed §4.4): the agent CLI in read-only mode first (no tool at all,
// in an empty folder, two attempts with a pause), then the AI facade's routed
// provider (three attempts, exponential backoff). Loopback providers (test and self-hosted
// models on this machine) skip the waits. An answer without the five sections is a failed
// attempt. Every agent CLI attempt writes its row to the consumption ledger, as the facade's do.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AiFacade } from '#layers/ai/core/facade'
import { COMPLETION_PROVIDERS } from '#layers/ai/core/catalog'
import { agentCliEnv, parseAgentCliOutput } from '#layers/ai/core/clients/agent-cli'
import type { ProcessRunner } from '#layers/ai/core/clients/process-runner'
import { forcedOffline, isLoopbackUrl, providerBaseUrl, providerKey, type AiEnv } from '#layers/ai/core/env'
import type { LedgerEntry } from '#layers/ai/core/ledger'
import { debriefAnswer } from './prompt'

export const DEBRIEF_FEATURE = 'learning_debrief'
/**
 * None: the bundle is in the prompt, and a Read tool would reach whatever the hub's user can
 * read on disk (its environment file, the session key) for a prompt injected through a
 * client's mail in the bundle, then into a note every signed-in person sees.
 */
export const READ_ONLY_TOOLS = [] as const
export const AGENT_CLI_ATTEMPTS = 2
export const FACADE_ATTEMPTS = 3
export const AGENT_CLI_PAUSE_MS = 10_000
export const FACADE_BACKOFF_MS = 2_000
export const AGENT_CLI_TIMEOUT_MS = 180_000

export interface DebriefModelDeps {
  ai: AiFacade
  env: AiEnv
  runner: ProcessRunner
  sleep: (ms: number) => Promise<void>
  /** Where the agent CLI attempts' ledger rows go. */
  recordLedger?: (entry: LedgerEntry) => Promise<void>
  log?: (line: string) => void
  signal?: AbortSignal
}

export interface DebriefModelAnswer {
  markdown: string
  via: 'agent-cli' | 'facade'
  provider: string
  model: string
  attempts: Array<{ via: 'agent-cli' | 'facade', ok: boolean, error?: string }>
}

export interface DebriefModelOptions {
  /** 'auto' (agent CLI, then the facade) or 'facade' (the seed's explicitly requested alternative mode). */
  via?: 'auto' | 'facade'
  tenant?: string
  actor?: string
}

/** The read-only headless command line: no tool (nothing read, written or run), one result object. */
export function readOnlyAgentArgs(input: { model: string, system: string, prompt: string }): string[] {
  return [
    '-p',
    '--output-format=json',
    '--no-session-persistence',
    '--max-turns=4',
    `--model=${input.model}`,
    '--permission-mode=dontAsk',
    '--permission-prompts=none',
    `--tools=${READ_ONLY_TOOLS.join(',')}`,
    `--system-prompt=${input.system}`,
    '--',
    input.prompt,
  ]
}

/** True when every configured completion provider answers from this machine (no rate limit to respect). */
export function completionIsLoopback(env: AiEnv): boolean {
  if (forcedOffline(env)) return true
  const remote = COMPLETION_PROVIDERS.filter(p => p !== 'offline' && (providerKey(env, p) || (p === 'openai-compat' && env.OPENAI_COMPAT_BASE_URL)))
  return remote.every(p => isLoopbackUrl(providerBaseUrl(env, p)))
}

class AttemptError extends Error {}

async function agentCliAttempt(
  deps: DebriefModelDeps,
  system: string,
  prompt: string,
  options: DebriefModelOptions,
  attempt: number,
): Promise<{ markdown: string, model: string }> {
  const model = deps.env.LEARNING_DEBRIEF_MODEL?.trim() || 'claude-sonnet-4-6'
  const binary = deps.env.SPAWN_AGENT_BIN?.trim() || 'claude'
  // An empty folder: the read-only tools have nothing of the hub's to read.
  const cwd = mkdtempSync(join(tmpdir(), 'synedre-debrief-'))
  const startedAt = Date.now()
  let outcome: { ok: boolean, error: string | null, tokensIn: number, tokensOut: number, cost: number | null, model: string } = {
    ok: false,
    error: null,
    tokensIn: 0,
    tokensOut: 0,
    cost: null,
    model,
  }
  try {
    const run = await deps.runner(binary, readOnlyAgentArgs({ model, system, prompt }), {
      env: agentCliEnv(deps.env),
      timeoutMs: AGENT_CLI_TIMEOUT_MS,
      signal: deps.signal,
      cwd,
    })
    if (run.timedOut) throw new AttemptError(`no answer within ${AGENT_CLI_TIMEOUT_MS / 1000} s`)
    const parsed = parseAgentCliOutput(run.stdout)
    if (!parsed) throw new AttemptError(`no result object (exit ${run.exitCode ?? run.signal})`)
    outcome = {
      ...outcome,
      tokensIn: parsed.tokensIn,
      tokensOut: parsed.tokensOut,
      cost: parsed.costUsd ?? null,
      model: parsed.model ?? model,
    }
    if (parsed.isError || parsed.subtype !== 'success')
      throw new AttemptError(`the agent ended with ${parsed.subtype}: ${parsed.text.slice(0, 200)}`)
    const markdown = debriefAnswer(parsed.text)
    if (!markdown) throw new AttemptError('the answer lacks one of the five sections')
    outcome.ok = true
    return { markdown, model: outcome.model }
  }
  catch (error) {
    outcome.error = (error as Error).message
    throw error
  }
  finally {
    rmSync(cwd, { recursive: true, force: true })
    await deps
      .recordLedger?.({
        callId: randomUUID(),
        at: new Date(startedAt),
        kind: 'completion',
        provider: 'anthropic',
        via: 'agent-cli',
        model: outcome.model,
        modelRequested: model,
        feature: DEBRIEF_FEATURE,
        tenant: options.tenant ?? null,
        actor: options.actor ?? null,
        attempt,
        outcome: outcome.ok ? 'ok' : 'failed',
        error: outcome.error,
        httpStatus: null,
        tokensIn: outcome.tokensIn,
        tokensOut: outcome.tokensOut,
        reportedCostUsd: outcome.cost,
        durationMs: Date.now() - startedAt,
        failoverChain: [],
      })
      .catch(error => deps.log?.(`[debrief] ledger row not written: ${(error as Error).message}`))
  }
}

export async function writeDebrief(
  deps: DebriefModelDeps,
  system: string,
  prompt: string,
  options: DebriefModelOptions = {},
): Promise<DebriefModelAnswer> {
  const attempts: DebriefModelAnswer['attempts'] = []
  if ((options.via ?? 'auto') === 'auto') {
    for (let attempt = 1; attempt <= AGENT_CLI_ATTEMPTS; attempt++) {
      try {
        const answer = await agentCliAttempt(deps, system, prompt, options, attempt)
        attempts.push({ via: 'agent-cli', ok: true })
        return { markdown: answer.markdown, via: 'agent-cli', provider: 'anthropic', model: answer.model, attempts }
      }
      catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        attempts.push({ via: 'agent-cli', ok: false, error: code ?? (error as Error).message })
        deps.log?.(`[debrief] agent CLI attempt ${attempt}/${AGENT_CLI_ATTEMPTS} failed: ${code ?? (error as Error).message}`)
        // The binary is absent: the seed's case for going to the second provider at once.
        if (code === 'ENOENT' || code === 'EACCES') break
        if (deps.signal?.aborted) throw error
        if (attempt < AGENT_CLI_ATTEMPTS) await deps.sleep(AGENT_CLI_PAUSE_MS)
      }
    }
  }
  const loopback = completionIsLoopback(deps.env)
  for (let attempt = 1; attempt <= FACADE_ATTEMPTS; attempt++) {
    try {
      const result = await deps.ai.complete({
        feature: DEBRIEF_FEATURE,
        system,
        prompt,
        tenant: options.tenant,
        actor: options.actor,
        maxTokens: 4096,
        signal: deps.signal,
      })
      const markdown = debriefAnswer(result.content)
      if (!markdown) throw new AttemptError('the answer lacks one of the five sections')
      attempts.push({ via: 'facade', ok: true })
      return { markdown, via: 'facade', provider: result.provider, model: result.model, attempts }
    }
    catch (error) {
      attempts.push({ via: 'facade', ok: false, error: (error as Error).message })
      deps.log?.(`[debrief] provider attempt ${attempt}/${FACADE_ATTEMPTS} failed: ${(error as Error).message}`)
      if (deps.signal?.aborted) throw error
      if (attempt < FACADE_ATTEMPTS && !loopback) await deps.sleep(FACADE_BACKOFF_MS * 2 ** (attempt - 1))
    }
  }
  const error = new Error(`no model could write the debrief (${attempts.map(a => `${a.via}: ${a.error}`).join('; ')})`)
  Object.assign(error, { attempts })
  throw error
}
