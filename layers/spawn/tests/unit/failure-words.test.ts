// A spawn's failure in words (failure-words.ts): the missing agent CLI and its variable, the
// address where nothing answers, the budget reached, the credential refused; an error result
// is never called a success. The spawn that records it: integration/failure-words.test.ts.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { agentBinaryProblem, agentFailureReason, agentNotStarted, knownFailure } from '#layers/spawn/core/failure-words'
import type { AgentRunOutcome } from '#layers/spawn/core/run-agent'
import { resultFigures } from '#layers/spawn/core/stream'

const dir = mkdtempSync(join(tmpdir(), 'failure-words-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const config = { timeoutMs: 600_000, agentBin: '/opt/agents/claude' }

function outcome(over: Partial<AgentRunOutcome>): AgentRunOutcome {
  return { ...agentNotStarted('unused'), wrapperError: null, wrapperExitCode: 1, contract: { ok: false, reason: 'no result file: the agent did not write /s/out/result.json' }, ...over }
}

describe('the agent CLI, checked before a spawn starts', () => {
  it('names the path and the variable when the binary is missing, not executable or a folder', () => {
    expect(agentBinaryProblem('/nonexistent/bin/claude', { PATH: '/usr/bin' })).toBe('the agent CLI was not found at /nonexistent/bin/claude (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN')
    const plain = join(dir, 'not-executable')
    writeFileSync(plain, '#!/bin/sh\n')
    chmodSync(plain, 0o644)
    // root may execute nothing without an x bit either.
    expect(agentBinaryProblem(plain, {})).toMatch(/^the agent CLI (is not executable|was not found) at .*not-executable \(SPAWN_AGENT_BIN\)/)
    expect(agentBinaryProblem(dir, {})).toBe(`the agent CLI is not a file at ${dir} (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN`)
    expect(agentBinaryProblem('claude-that-is-nowhere', { PATH: dir })).toBe('the agent CLI "claude-that-is-nowhere" is not on the agent\'s PATH (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN to its full path')
  })
  it('says nothing when it can start', () => {
    expect(agentBinaryProblem(process.execPath, {})).toBeNull()
    expect(agentBinaryProblem('sh', { PATH: '/bin:/usr/bin' })).toBeNull()
  })
})

describe('known failures in a text', () => {
  it('a refused port, by host and port', () => {
    expect(knownFailure('connect ECONNREFUSED 127.0.0.1:4010', 'the pre-production address')).toBe('nothing answers on 127.0.0.1:4010 (the pre-production address): start the service or correct the address')
    expect(knownFailure('page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:3999/contact')).toBe('nothing answers on localhost:3999: start the service or correct the address')
  })
  it('a budget reached (429 budget_exceeded), its own words kept', () => {
    expect(knownFailure('API Error: 429 {"type":"error","error":{"type":"budget_exceeded","message":"the monthly budget of agent atlas is reached: $12.00 of $10.00"}}'))
      .toBe('the monthly budget of agent atlas is reached: a founder can raise it on /hub/usage')
    expect(knownFailure('429 budget_exceeded')).toBe('a monthly budget is reached (429 budget_exceeded): a founder can raise it on /hub/usage')
  })
  it('an unknown host, a refused credential, a program not found; nothing for the rest', () => {
    expect(knownFailure('getaddrinfo ENOTFOUND preprod.acme.test')).toMatch(/^the host preprod\.acme\.test does not resolve/)
    expect(knownFailure('Invalid API key · Please run /login')).toMatch(/refused the credential \(SPAWN_AGENT_CREDENTIAL/)
    expect(knownFailure('spawn /usr/bin/chromium ENOENT')).toBe('the program /usr/bin/chromium was not found (ENOENT): install it or correct its path')
    expect(knownFailure('listening on port 4010')).toBeNull()
    expect(knownFailure('the build failed: 3 type errors')).toBeNull()
  })
})

describe('why an agent run failed', () => {
  it('an error result whose subtype is `success` is said by its text, never as a success', () => {
    const result = resultFigures({ type: 'result', subtype: 'success', is_error: true, result: 'Invalid API key · Please run /login' })
    const reason = agentFailureReason(outcome({ agentExitCode: 1, result }), config)
    expect(reason).toBe('the model API refused the credential (SPAWN_AGENT_CREDENTIAL, default ANTHROPIC_API_KEY): set a valid key; no usable checkpoint (no result file: the agent did not write /s/out/result.json)')
    expect(reason).not.toMatch(/success/)
    const other = agentFailureReason(outcome({ agentExitCode: 1, result: resultFigures({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: 529 Overloaded' }) }), config)
    expect(other).toBe('the agent ended in error (the agent exited with code 1): API Error: 529 Overloaded; no usable checkpoint (no result file: the agent did not write /s/out/result.json)')
  })
  it('the wrapper\'s "agent not found", and the sandbox\'s 127 and 126', () => {
    expect(agentFailureReason(outcome({ wrapperError: 'agent binary "/opt/agents/claude" not found (set SPAWN_AGENT_BIN to its path)' }), config))
      .toBe('the agent CLI was not found at /opt/agents/claude (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN')
    expect(agentFailureReason(outcome({ agentExitCode: 127 }), config)).toMatch(/could not be found inside the sandbox \(exit 127\)/)
    expect(agentFailureReason(outcome({ agentExitCode: 126 }), config)).toMatch(/could not be executed inside the sandbox \(exit 126\)/)
  })
  it('a model API where nothing answers, from the agent\'s last words', () => {
    const result = resultFigures({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: Connection error. connect ECONNREFUSED 127.0.0.1:9' })
    expect(agentFailureReason(outcome({ result }), config)).toMatch(/^nothing answers on 127\.0\.0\.1:9 \(the model API, ANTHROPIC_BASE_URL\)/)
  })
  it('the timeout names its variable; a stop keeps its cause', () => {
    expect(agentFailureReason(outcome({ timedOut: true }), config)).toMatch(/^the agent was stopped at the timeout \(10 min, SPAWN_TIMEOUT_SEC\)/)
    expect(agentFailureReason(outcome({ aborted: 'the worker is stopping' }), config)).toMatch(/^the agent was stopped: the worker is stopping;/)
  })
})
