// A spawn's failure in words a person can act on (issue 36, deliverable 3): the agent CLI that
// is missing and the variable that names it, the address where nothing answers, the budget or
// the credential the model API refused. Shown as the spawn's reason on its page, in the team's
// mail and in the message's status; never a contradiction such as "exited with code 1 (its
// result: success)". Pure but for agentBinaryProblem, which looks at the file system.
import { accessSync, constants, statSync } from 'node:fs'
import type { SpawnConfig } from './config'
import type { AgentRunOutcome } from './run-agent'
import { findBinary } from './wrapper-args'

/** Why the agent CLI cannot be started, checked before anything else; null when it can. */
export function agentBinaryProblem(agentBin: string, env: Readonly<Record<string, string | undefined>>): string | null {
  if (findBinary(agentBin, env)) return null
  if (!agentBin.includes('/')) return `the agent CLI "${agentBin}" is not on the agent's PATH (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN to its full path`
  let what = 'was not found at'
  try {
    const stat = statSync(agentBin)
    if (!stat.isFile()) what = 'is not a file at'
    else {
      accessSync(agentBin, constants.X_OK)
    }
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES') what = 'is not executable at'
  }
  return `the agent CLI ${what} ${agentBin} (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN`
}

/** host:port of a refused connection in a message, when it names one. */
function refusedAddress(text: string): string | null {
  const url = /(?:ECONNREFUSED|ERR_CONNECTION_REFUSED)\D*?(https?:\/\/[^\s/]+)/.exec(text)?.[1]
  if (url) {
    try {
      const parsed = new URL(url)
      return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`
    }
    catch {
      return url
    }
  }
  return /ECONNREFUSED\s+\[?([\w.:-]+?)\]?:(\d+)/.exec(text)?.slice(1, 3).join(':') ?? null
}

/**
 * A known failure named in a text (an error message, the agent's last words), in words; null
 * when none is recognised. `where` says what the address was for (the model API, the QA page).
 */
export function knownFailure(text: string, where?: string): string | null {
  const suffix = where ? ` (${where})` : ''
  if (/budget_exceeded|monthly budget/i.test(text)) {
    const said = /the monthly budget of [^:;\n]+ is reached/i.exec(text)?.[0]
    return `${said ? `the${said.slice(3)}` : 'a monthly budget is reached (429 budget_exceeded)'}: a founder can raise it on /hub/usage`
  }
  const refused = refusedAddress(text)
  if (refused || /ECONNREFUSED|ERR_CONNECTION_REFUSED/.test(text)) return `nothing answers on ${refused ?? 'the address'}${suffix}: start the service or correct the address`
  const unknownHost = /(?:ENOTFOUND|EAI_AGAIN|ERR_NAME_NOT_RESOLVED)\s*(?:at\s+)?(?:https?:\/\/)?([\w.-]+)?/.exec(text)
  if (unknownHost) return `the host ${unknownHost[1] ?? '(unnamed)'} does not resolve${suffix}: check the address`
  if (/invalid x-api-key|invalid api key|authentication_error|API Error: 401\b/i.test(text)) return 'the model API refused the credential (SPAWN_AGENT_CREDENTIAL, default ANTHROPIC_API_KEY): set a valid key'
  if (/credit balance is too low/i.test(text)) return 'the model account has no credit left: add credit or change the key (SPAWN_AGENT_CREDENTIAL)'
  if (/rate_limit_error|\b429\b/.test(text)) return 'the model API is rate-limiting the studio (429): the spawn can be retried later'
  const missing = /spawn (\S+) ENOENT/.exec(text)
  if (missing) return `the program ${missing[1]} was not found (ENOENT): install it or correct its path`
  return null
}

const minutes = (ms: number) => ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`

/** Why an agent run failed, in words: the first cause a person can act on, then what was kept. */
export function agentFailureReason(agent: AgentRunOutcome, config: Pick<SpawnConfig, 'timeoutMs' | 'agentBin'>): string {
  const checkpoint = agent.contract.ok ? 'the last checkpoint was salvaged' : `no usable checkpoint (${agent.contract.reason})`
  if (agent.timedOut) return `the agent was stopped at the timeout (${minutes(config.timeoutMs)}, SPAWN_TIMEOUT_SEC); ${checkpoint}`
  if (agent.aborted) return `the agent was stopped: ${agent.aborted}; ${checkpoint}`
  if (agent.wrapperError) {
    if (/agent_not_found|not found \(set SPAWN_AGENT_BIN/.test(agent.wrapperError)) return `the agent CLI was not found at ${config.agentBin} (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN`
    return `the agent could not run: ${knownFailure(agent.wrapperError) ?? agent.wrapperError}`
  }
  // 126 and 127 are the shell's "cannot execute" and "not found", inside the sandbox.
  if (agent.agentExitCode === 127) return `the agent CLI ${config.agentBin} could not be found inside the sandbox (exit 127): it must be readable there (SPAWN_AGENT_BIN, SPAWN_TOOLCHAIN)`
  if (agent.agentExitCode === 126) return `the agent CLI ${config.agentBin} could not be executed inside the sandbox (exit 126): check its permissions (SPAWN_AGENT_BIN)`
  const said = [agent.result?.text ?? '', ...(agent.result?.errors ?? []), agent.stderrTail].join('\n')
  const known = knownFailure(said, 'the model API, ANTHROPIC_BASE_URL')
  const exit = agent.agentExitCode !== null && agent.agentExitCode !== 0 ? ` (the agent exited with code ${agent.agentExitCode})` : ''
  if (agent.result?.isError) {
    // The CLI's subtype is `success` even on an error result: never shown as such.
    const words = known ?? `the agent ended in error${exit}: ${(agent.result.text || agent.result.errors.join('; ') || agent.result.subtype).slice(0, 300)}`
    return `${words}; ${checkpoint}`
  }
  if (known) return `${known}; ${checkpoint}`
  if (agent.contract.ok) return `the agent ended in error${exit}; ${checkpoint}`
  return `${agent.contract.reason}${exit}`
}

/** The outcome of an agent that was never started (its CLI missing): nothing ran, nothing was kept. */
export function agentNotStarted(reason: string): AgentRunOutcome {
  return {
    wrapperExitCode: null, wrapperSignal: null, agentPid: null, agentExitCode: null, agentSignal: null, timedOut: false, aborted: null,
    result: null, resultEvent: null, contract: { ok: false, reason }, wrapperError: reason, stderrTail: '', events: 0,
  }
}
