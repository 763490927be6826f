// One agent run: the prompts written to temporary files, the pseudo-terminal wrapper started
// (a Node program, in its own process group, its stdin a pipe that tells it when we die),
// its JSONL read line by line into the event log as it comes, and the result file read at
// the end. A worker whose job expires, or who loses its lease, stops the wrapper's and the
// agent's groups and every process of the spawn.
import { spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { constants } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { readResultFile, type ContractReading } from './contract'
import type { EventSink } from './events'
import { stopSpawnProcesses } from './processes'
import { resultFigures, type ResultFigures, type StreamEvent } from './stream'

export const WRAPPER_SCRIPT = fileURLToPath(new URL('../../../scripts/spawn-pty.ts', import.meta.url))

export interface AgentRunInput {
  spawnId: string
  prompt: string
  systemPrompt: string
  /** Where the agent must write its result file (also given as ATLAS_RESULT_FILE). */
  resultFile: string
  workDir: string
  spawnDir: string
  logPath: string
  model: string
  permissionMode: string
  agentBin: string
  timeoutMs: number
  killGraceMs: number
  /** The agent's whole environment (an allowlist: see sandbox.ts), never the worker's. */
  env: Readonly<Record<string, string | undefined>>
  /** The sandbox policy the wrapper applies (sandbox.json); none without it. */
  sandboxFile?: string
  /** The CLI's MCP configuration and tool lists (mcp.ts); none without it. */
  mcp?: { configFile: string, allowedTools: string[], disallowedTools: string[] } | null
  sink: EventSink
  /** Stops the run (job expired, lease lost, shutdown): the groups are stopped. */
  signal?: AbortSignal
  /** Called as soon as the wrapper reports the agent's process (pid = group). */
  onAgentStarted?: (agent: { pid: number, at: Date }) => void
  log?: (line: string) => void
}

export interface AgentRunOutcome {
  wrapperExitCode: number | null
  wrapperSignal: string | null
  agentPid: number | null
  agentExitCode: number | null
  /** The signal that ended the agent (SIGTERM, SIGKILL, …), when one did. */
  agentSignal: string | null
  timedOut: boolean
  /** Stopped by us (signal): the job expired, the lease was lost, or the worker stops. */
  aborted: string | null
  result: ResultFigures | null
  resultEvent: StreamEvent | null
  contract: ContractReading
  wrapperError: string | null
  stderrTail: string
  events: number
}

export function spawnPaths(baseDir: string, spawnId: string) {
  const spawnDir = join(baseDir, `spawn-${spawnId}`)
  return { spawnDir, promptFile: join(spawnDir, 'prompt.md'), systemPromptFile: join(spawnDir, 'system-prompt.md'), resultFile: join(spawnDir, 'result.json') }
}

/** The prompts on disk for the wrapper, and no result file left from an earlier attempt. */
function writeAgentFiles(input: AgentRunInput): { promptFile: string, systemPromptFile: string } {
  mkdirSync(input.spawnDir, { recursive: true })
  const promptFile = join(input.spawnDir, 'prompt.md')
  const systemPromptFile = join(input.spawnDir, 'system-prompt.md')
  writeFileSync(promptFile, input.prompt)
  writeFileSync(systemPromptFile, input.systemPrompt)
  rmSync(input.resultFile, { force: true })
  return { promptFile, systemPromptFile }
}

function wrapperArgs(input: AgentRunInput, files: { promptFile: string, systemPromptFile: string }): string[] {
  return [
    '--import', 'tsx', WRAPPER_SCRIPT,
    '--id', input.spawnId,
    '--prompt-file', files.promptFile,
    '--system-prompt-file', files.systemPromptFile,
    '--model', input.model,
    '--stream-log', input.logPath,
    '--add-dir', input.workDir,
    '--timeout-sec', String(Math.max(1, Math.round(input.timeoutMs / 1000))),
    '--agent-bin', input.agentBin,
    '--permission-mode', input.permissionMode,
    '--kill-grace-ms', String(input.killGraceMs),
    ...(input.sandboxFile ? ['--sandbox-file', input.sandboxFile] : []),
    ...(input.mcp
      ? ['--mcp-config', input.mcp.configFile, '--allowed-tools', input.mcp.allowedTools.join(','), '--disallowed-tools', input.mcp.disallowedTools.join(',')]
      : []),
  ]
}

/** What the wrapper's events said of the agent, as they come. */
interface Watch {
  agentPid: number | null
  agentExitCode: number | null
  agentSignal: string | null
  timedOut: boolean
  aborted: string | null
  resultEvent: StreamEvent | null
  wrapperError: string | null
  stderrTail: string
}

/** One line of the wrapper's stdout: a JSON event, or null for anything else. */
function eventOf(line: string): StreamEvent | null {
  if (!line.trim()) return null
  try {
    const event = JSON.parse(line) as StreamEvent
    return event && typeof event.type === 'string' ? event : null
  }
  catch {
    return null
  }
}

/** Reads the wrapper's events into the watch, each one stored by the sink. */
async function readEvents(stdout: NodeJS.ReadableStream, input: AgentRunInput, watch: Watch): Promise<void> {
  const lines = createInterface({ input: stdout, crlfDelay: Infinity })
  for await (const line of lines) {
    const event = eventOf(line)
    if (!event) continue
    if (event.type === 'node_pty_spawn' && typeof event.pid === 'number') {
      watch.agentPid = event.pid
      input.onAgentStarted?.({ pid: event.pid, at: new Date() })
    }
    else if (event.type === 'node_pty_exit') {
      watch.agentExitCode = typeof event.exit_code === 'number' ? event.exit_code : null
      watch.agentSignal = signalName(event.signal)
      // A process ended by a signal has no exit code (the terminal reports 0 for it).
      if (watch.agentSignal) watch.agentExitCode = null
      watch.timedOut = event.timed_out === true
    }
    else if (event.type === 'node_pty_error') watch.wrapperError = String(event.message ?? event.error)
    else if (event.type === 'result' && !watch.resultEvent) watch.resultEvent = event
    await input.sink.add(event)
  }
}

export async function runAgent(input: AgentRunInput): Promise<AgentRunOutcome> {
  const args = wrapperArgs(input, writeAgentFiles(input))
  const child = spawn(process.execPath, args, {
    env: { ...input.env, ATLAS_RESULT_FILE: input.resultFile } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  const watch: Watch = { agentPid: null, agentExitCode: null, agentSignal: null, timedOut: false, aborted: null, resultEvent: null, wrapperError: null, stderrTail: '' }
  child.stderr!.on('data', (chunk: Buffer) => {
    watch.stderrTail = (watch.stderrTail + chunk.toString('utf8')).slice(-4000)
  })
  child.stdin!.on('error', () => {})

  const stopAll = async () => {
    const targets = [
      child.pid !== undefined ? stopSpawnProcesses({ pgid: child.pid, rootPid: child.pid }, input.killGraceMs) : undefined,
      watch.agentPid !== null
        ? stopSpawnProcesses({ pgid: watch.agentPid, rootPid: watch.agentPid, spawnId: input.spawnId }, input.killGraceMs)
        : stopSpawnProcesses({ spawnId: input.spawnId }, input.killGraceMs),
    ]
    await Promise.all(targets)
  }
  const onAbort = () => {
    watch.aborted = String((input.signal?.reason as Error | undefined)?.message ?? input.signal?.reason ?? 'aborted')
    input.log?.(`[spawn ${input.spawnId}] stopping the agent: ${watch.aborted}`)
    void stopAll()
  }
  if (input.signal?.aborted) onAbort()
  else input.signal?.addEventListener('abort', onAbort, { once: true })

  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    child.once('error', (error) => {
      watch.wrapperError = error.message
      resolve({ code: null, signal: null })
    })
  })

  await readEvents(child.stdout!, input, watch)
  const exit = await exited
  child.stdin!.destroy()
  input.signal?.removeEventListener('abort', onAbort)
  // Whatever outlived the wrapper (it was killed, or a descendant escaped) goes now.
  await stopAll()
  await input.sink.close()
  if (exit.code === 2 && !watch.wrapperError) watch.wrapperError = `the wrapper refused its arguments: ${watch.stderrTail.trim().slice(-500)}`
  const contract = await readResultFile(input.resultFile)
  return {
    wrapperExitCode: exit.code,
    wrapperSignal: exit.signal,
    agentPid: watch.agentPid,
    agentExitCode: watch.agentExitCode,
    agentSignal: watch.agentSignal,
    timedOut: watch.timedOut,
    aborted: watch.aborted,
    result: watch.resultEvent ? resultFigures(watch.resultEvent) : null,
    resultEvent: watch.resultEvent,
    contract,
    wrapperError: watch.wrapperError,
    stderrTail: watch.stderrTail,
    events: input.sink.count(),
  }
}

function signalName(raw: unknown): string | null {
  if (typeof raw === 'string' && raw) return raw
  if (typeof raw !== 'number' || raw <= 0) return null
  return Object.entries(constants.signals).find(([, number]) => number === raw)?.[0] ?? `signal ${raw}`
}
