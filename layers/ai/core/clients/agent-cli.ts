// Anthropic through the agent CLI (the seed's "call via the internal agent"): used when no
// ANTHROPIC_API_KEY is set and AI_AGENT_CLI=1. Runs headless `claude -p` with JSON output
// and reads its single result object (result, is_error, usage, modelUsage, total_cost_usd).
// The process runner is injected; the pseudo-terminal wrapper of the spawn engine can take
// its place once it exists.
import { resolveAnthropicModel } from '../catalog'
import { AiAbortedError, ProviderError } from '../errors'
import { JSON_INSTRUCTION } from './anthropic'
import { count, record } from './parse'
import type { ProcessRunner } from './process-runner'
import type { ChatRequest, ProviderClient } from './types'

/**
 * The arguments, valued flags in their --flag=value form (several of the CLI's flags are
 * variadic and would swallow a following prompt) and the prompt last, after `--`.
 */
export function agentCliArgs(request: Pick<ChatRequest, 'model' | 'system' | 'prompt' | 'json'>): string[] {
  const system = [request.system, request.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n')
  return [
    '-p',
    '--output-format=json',
    '--no-session-persistence',
    '--max-turns=1',
    `--model=${request.model}`,
    ...(system ? [`--system-prompt=${system}`] : []),
    '--',
    request.prompt,
  ]
}

/** The child's environment: no API keys of any provider, no nested-session markers. */
export function agentCliEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (name === 'CLAUDECODE' || name.startsWith('CLAUDE_CODE_')) continue
    if (/_API_KEY$/.test(name)) continue
    out[name] = value
  }
  return out
}

export interface AgentCliResult {
  text: string
  isError: boolean
  subtype: string
  model?: string
  tokensIn: number
  tokensOut: number
  costUsd?: number
}

/** The last `{"type":"result"}` object of the CLI's output (noise before it is ignored). */
export function parseAgentCliOutput(stdout: string): AgentCliResult | null {
  const candidates = stdout.split(/\r?\n/).map(line => line.trim()).filter(line => line.startsWith('{'))
  const whole = stdout.trim()
  if (whole.startsWith('{')) candidates.push(whole)
  for (let i = candidates.length - 1; i >= 0; i--) {
    let parsed: unknown
    try {
      parsed = JSON.parse(candidates[i]!)
    }
    catch {
      continue
    }
    const result = record(parsed)
    if (result?.type !== 'result') continue
    const usage = record(result.usage)
    const models = record(result.modelUsage)
    const modelNames = models ? Object.keys(models) : []
    return {
      text: typeof result.result === 'string' ? result.result : '',
      isError: result.is_error === true,
      subtype: typeof result.subtype === 'string' ? result.subtype : 'unknown',
      model: modelNames[0],
      tokensIn: count(usage?.input_tokens) + count(usage?.cache_creation_input_tokens) + count(usage?.cache_read_input_tokens),
      tokensOut: count(usage?.output_tokens),
      costUsd: typeof result.total_cost_usd === 'number' ? result.total_cost_usd : undefined,
    }
  }
  return null
}

export function createAgentCliClient(options: {
  binary: string
  runner: ProcessRunner
  env: Readonly<Record<string, string | undefined>>
}): ProviderClient {
  return {
    provider: 'anthropic',
    via: 'agent-cli',
    async chat(request) {
      if (request.signal?.aborted) throw new AiAbortedError()
      // `claude -p` runs its own tools, not the caller's: a tool-calling request fails over.
      if (request.tools && request.tools.length > 0)
        throw new ProviderError({
          provider: 'anthropic',
          code: 'tools_unsupported',
          retryable: false,
          requestSpecific: true,
          detail: 'the agent CLI does not take the caller\'s tools',
        })
      const model = resolveAnthropicModel(request.model)
      let run
      try {
        run = await options.runner(options.binary, agentCliArgs({ ...request, model }), {
          env: agentCliEnv(options.env),
          timeoutMs: request.timeoutMs,
          signal: request.signal,
        })
      }
      catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'EACCES') {
          throw new ProviderError({
            provider: 'anthropic',
            code: 'agent_cli_missing',
            retryable: false,
            detail: `cannot run the agent CLI (${code}); set SPAWN_AGENT_BIN`,
          })
        }
        throw new ProviderError({
          provider: 'anthropic',
          code: 'agent_cli_failed',
          retryable: true,
          detail: code ?? 'the agent CLI could not be started',
        })
      }
      if (request.signal?.aborted) throw new AiAbortedError()
      if (run.timedOut)
        throw new ProviderError({
          provider: 'anthropic',
          code: 'timeout',
          retryable: true,
          detail: `the agent CLI gave no answer within ${request.timeoutMs} ms`,
        })
      const parsed = parseAgentCliOutput(run.stdout)
      if (!parsed) {
        throw new ProviderError({
          provider: 'anthropic',
          code: 'agent_cli_failed',
          retryable: true,
          detail: `no result object (exit ${run.exitCode ?? run.signal})`,
        })
      }
      if (parsed.isError || parsed.subtype !== 'success') {
        throw new ProviderError({
          provider: 'anthropic',
          code: `agent_cli_${parsed.subtype}`,
          retryable: true,
          detail: parsed.text.slice(0, 200),
        })
      }
      return {
        content: parsed.text,
        model: parsed.model ?? model,
        tokensIn: parsed.tokensIn,
        tokensOut: parsed.tokensOut,
        costUsd: parsed.costUsd,
      }
    },
  }
}
