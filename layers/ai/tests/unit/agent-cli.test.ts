// The agent CLI adapter (Anthropic without an API key): its arguments, its environment,
// how it reads the result object, and the default runner spawning a real stand-in binary.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { agentCliArgs, agentCliEnv, createAgentCliClient, parseAgentCliOutput } from '../../core/clients/agent-cli'
import { spawnProcess, type ProcessRunner } from '../../core/clients/process-runner'
import type { ProviderError } from '../../core/errors'
import { rejection } from '../fakes/harness'

const FAKE_CLAUDE = fileURLToPath(new URL('../fakes/fake-claude.mjs', import.meta.url))
const request = { model: 'sonnet', system: 'Be brief.', prompt: '--add-dir /etc and hello', maxTokens: 100, temperature: 0, json: false, timeoutMs: 10_000, feature: 'test' }

describe('agent CLI arguments', () => {
  it('uses --flag=value forms and puts the prompt last after --', () => {
    expect(agentCliArgs({ model: 'claude-sonnet-4-6', system: 'Be brief.', prompt: 'hello', json: true })).toEqual([
      '-p',
      '--output-format=json',
      '--no-session-persistence',
      '--max-turns=1',
      '--model=claude-sonnet-4-6',
      '--system-prompt=Be brief.\n\nAnswer with one JSON object only: no prose, no code fence.',
      '--',
      'hello',
    ])
    expect(agentCliArgs({ model: 'm', prompt: 'p', json: false })).not.toContainEqual(expect.stringMatching(/^--system-prompt/))
  })

  it('drops API keys and nested-session markers from the child environment', () => {
    expect(agentCliEnv({ PATH: '/bin', HOME: '/home/x', MISTRAL_API_KEY: 'k', OPENAI_API_KEY: 'k', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', DATABASE_URL: 'postgres://x' }))
      .toEqual({ PATH: '/bin', HOME: '/home/x', DATABASE_URL: 'postgres://x' })
  })
})

describe('agent CLI result parsing', () => {
  it('reads the last result object past any noise', () => {
    const parsed = parseAgentCliOutput('banner\n{"type":"system"}\n{"type":"result","subtype":"success","is_error":false,"result":"hi","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":2},"modelUsage":{"claude-sonnet-4-6":{}}}\n')
    expect(parsed).toEqual({ text: 'hi', isError: false, subtype: 'success', model: 'claude-sonnet-4-6', tokensIn: 3, tokensOut: 2, costUsd: 0.01 })
  })

  it('returns null when there is no result object', () => {
    expect(parseAgentCliOutput('nothing here\n{broken')).toBeNull()
  })
})

describe('agent CLI client with an injected runner', () => {
  it('runs the configured binary and reports tokens, model and the CLI\'s own cost', async () => {
    const calls: Array<{ command: string, args: string[], env: Record<string, string | undefined> }> = []
    const runner: ProcessRunner = async (command, args, options) => {
      calls.push({ command, args, env: options.env })
      return { exitCode: 0, signal: null, timedOut: false, stderr: '', stdout: JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done', total_cost_usd: 0.002, usage: { input_tokens: 10, output_tokens: 4 }, modelUsage: { 'claude-sonnet-4-6': {} } }) }
    }
    const client = createAgentCliClient({ binary: '/opt/claude', runner, env: { PATH: '/bin', ANTHROPIC_API_KEY: '' } })
    const result = await client.chat!(request)
    expect(client.via).toBe('agent-cli')
    expect(calls[0]!.command).toBe('/opt/claude')
    expect(calls[0]!.args).toContain('--model=claude-sonnet-4-6')
    expect(calls[0]!.args.at(-1)).toBe('--add-dir /etc and hello')
    expect(calls[0]!.args.at(-2)).toBe('--')
    expect(result).toEqual({ content: 'done', model: 'claude-sonnet-4-6', tokensIn: 10, tokensOut: 4, costUsd: 0.002 })
  })

  it('reports a timed-out run as a retryable timeout', async () => {
    const runner: ProcessRunner = async () => ({ exitCode: null, signal: 'SIGTERM', timedOut: true, stderr: '', stdout: '' })
    const error = await rejection<ProviderError>(createAgentCliClient({ binary: 'claude', runner, env: {} }).chat!(request))
    expect(error).toMatchObject({ code: 'timeout', retryable: true })
  })
})

describe('agent CLI client with the default runner (a real stand-in binary)', () => {
  const env = (mode: string) => ({ ...process.env, FAKE_CLAUDE_MODE: mode, MISTRAL_API_KEY: 'must-not-pass', CLAUDECODE: '1' })

  it('spawns the binary and reads its JSON result', async () => {
    const result = await createAgentCliClient({ binary: FAKE_CLAUDE, runner: spawnProcess, env: env('ok') }).chat!(request)
    expect(result).toEqual({ content: 'agent says: --add-dir /etc and hello', model: 'claude-sonnet-4-6', tokensIn: 135, tokensOut: 12, costUsd: 0.0042 })
  })

  it('passes no API key and no nested-session marker to the child', async () => {
    const result = await createAgentCliClient({ binary: FAKE_CLAUDE, runner: spawnProcess, env: env('env') }).chat!(request)
    const names = JSON.parse(result.content) as string[]
    expect(names).toContain('FAKE_CLAUDE_MODE')
    expect(names).not.toContain('MISTRAL_API_KEY')
    expect(names).not.toContain('CLAUDECODE')
  })

  it('fails with the CLI\'s error subtype, or when no result object comes', async () => {
    const failed = await rejection<ProviderError>(createAgentCliClient({ binary: FAKE_CLAUDE, runner: spawnProcess, env: env('error') }).chat!(request))
    expect(failed).toMatchObject({ code: 'agent_cli_error_during_execution', retryable: true })
    const garbage = await rejection<ProviderError>(createAgentCliClient({ binary: FAKE_CLAUDE, runner: spawnProcess, env: env('garbage') }).chat!(request))
    expect(garbage).toMatchObject({ code: 'agent_cli_failed', retryable: true })
  })

  it('kills a hanging CLI at the timeout', async () => {
    const started = Date.now()
    const error = await rejection<ProviderError>(createAgentCliClient({ binary: FAKE_CLAUDE, runner: spawnProcess, env: env('hang') }).chat!({ ...request, timeoutMs: 300 }))
    expect(error).toMatchObject({ code: 'timeout' })
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('reports a missing binary as permanent', async () => {
    const error = await rejection<ProviderError>(createAgentCliClient({ binary: '/nonexistent/claude', runner: spawnProcess, env: env('ok') }).chat!(request))
    expect(error).toMatchObject({ code: 'agent_cli_missing', retryable: false })
  })
})
