// The pseudo-terminal wrapper: runs the headless agent in a real pseudo-terminal (node-pty,
// xterm-color, 200×50) in a process group of its own, and turns the terminal's stream into
// JSON lines on stdout (teed to the stream log). Launching the agent without a terminal makes
// it hang silently; hence this program.
//
//   node --import tsx scripts/spawn-pty.ts --id <spawn id> \
//     --prompt-file <path> --system-prompt-file <path> --model sonnet \
//     --stream-log <path> --add-dir <dir> --timeout-sec 2400
//
// The first `result` event is the end: after a short drain the group is stopped (the CLI may
// linger). A `node_pty_spawn` event comes first (the agent's pid, which is also its group),
// a `node_pty_exit` event last. Exit codes: 0 ok, 1 error (including a result with
// is_error: true, a timeout, a crash), 2 bad arguments. At the timeout the whole group and
// any descendant that left it are stopped: TERM, then KILL after a grace. When the parent
// goes away (stdin is a pipe that closes), the agent is stopped too. The terminal may drop
// the last output of a child that exits quickly: the result file is the contract.
import { createWriteStream, fstatSync, mkdirSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs'
import { dirname, join } from 'node:path'
import type { IPty } from 'node-pty'
import { agentEnv, buildAgentArgs } from '#layers/spawn/core/args'
import { SPAWN_MARKER } from '#layers/spawn/core/processes'
import { confinedCommand, makeSrtRuntimeDir, srtSettings, type SandboxPolicy } from '#layers/spawn/core/sandbox'
import { drainLateOutput, follow, reportExit, type Session, type SessionOutput } from '#layers/spawn/core/pty-session'
import { findBinary, parseWrapperArgs, WrapperUsageError, type WrapperArgs } from '#layers/spawn/core/wrapper-args'

function writeLine(stream: NodeJS.WritableStream, event: Record<string, unknown>): boolean {
  return stream.write(`${JSON.stringify(event)}\n`)
}

/** The wrapper's two outputs: stdout and the stream log, every event written to both. */
interface Output extends SessionOutput {
  stdout: NodeJS.WriteStream
  log: WriteStream
  /** Flushes both and hands the exit code back. */
  finish: (code: number) => Promise<number>
}

function openOutput(streamLog: string): Output {
  mkdirSync(dirname(streamLog), { recursive: true })
  const log: WriteStream = createWriteStream(streamLog, { flags: 'a' })
  const stdout = process.stdout
  return {
    stdout,
    log,
    emit: (event) => {
      const a = writeLine(stdout, event)
      const b = writeLine(log, event)
      return a && b
    },
    finish: async (code) => {
      await new Promise<void>(resolve => log.end(() => resolve()))
      await new Promise<void>(resolve => stdout.write('', () => resolve()))
      return code
    },
  }
}

/** An agent that never started: its error, then the exit event, and code 1. */
async function neverStarted(output: Output, args: WrapperArgs, started: number, error: string, message: string): Promise<number> {
  output.emit({ type: 'node_pty_error', spawn_id: args.id, error, message })
  output.emit({ type: 'node_pty_exit', spawn_id: args.id, exit_code: null, signal: null, result_seen: false, timed_out: false, duration_ms: Date.now() - started })
  return await output.finish(1)
}

/** The agent's command line, confined by the sandbox policy when there is one (srt's settings written next to it). */
function agentCommand(args: WrapperArgs, binary: string) {
  const prompt = readFileSync(args.promptFile, 'utf8')
  const systemPrompt = readFileSync(args.systemPromptFile, 'utf8')
  const argv = buildAgentArgs({
    addDir: args.addDir,
    model: args.model,
    systemPrompt,
    permissionMode: args.permissionMode,
    prompt,
    mcpConfig: args.mcpConfig,
    allowedTools: args.allowedTools,
    disallowedTools: args.disallowedTools,
  })
  const env = agentEnv(process.env, { [SPAWN_MARKER]: args.id })
  const policy = args.sandboxFile ? JSON.parse(readFileSync(args.sandboxFile, 'utf8')) as SandboxPolicy : null
  let settingsFile: string | undefined
  let srtRuntime: string | undefined
  if (policy?.mode === 'srt') {
    srtRuntime = makeSrtRuntimeDir(policy.user)
    // Whatever way the wrapper ends (process.exit included), srt's folder goes with it.
    process.once('exit', () => rmSync(srtRuntime!, { recursive: true, force: true }))
    settingsFile = join(dirname(args.sandboxFile!), 'srt-settings.json')
    writeFileSync(settingsFile, JSON.stringify(srtSettings(policy, srtRuntime)), { mode: 0o644 })
  }
  return { command: confinedCommand(policy, binary, argv, env, settingsFile, srtRuntime), policy }
}

/** Stops the agent when the parent goes away or the wrapper is signalled. */
function stopWithParent(session: Session): void {
  // The parent holds our stdin open as a pipe (a socket pair for Node parents): when it
  // closes, the parent is gone.
  try {
    const stdin = fstatSync(0)
    if (stdin.isFIFO() || stdin.isSocket()) {
      process.stdin.resume()
      process.stdin.on('end', () => {
        session.parentGone = true
        void session.stop('parent_gone')
      })
    }
  }
  catch { /* no stdin */ }
  const onSignal = (signal: NodeJS.Signals) => void session.stop(`wrapper received ${signal}`)
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  process.once('SIGHUP', onSignal)
}

async function run(args: WrapperArgs): Promise<number> {
  const started = Date.now()
  const output = openOutput(args.streamLog)
  const binary = findBinary(args.agentBin)
  if (!binary) return await neverStarted(output, args, started, 'agent_not_found', `agent binary "${args.agentBin}" not found (set SPAWN_AGENT_BIN to its path)`)
  const { command, policy } = agentCommand(args, binary)

  const pty = await import('node-pty')
  let child: IPty
  try {
    child = pty.spawn(command.file, command.args, { name: 'xterm-color', cols: 200, rows: 50, cwd: args.addDir, env: command.env })
  }
  catch (error) {
    return await neverStarted(output, args, started, 'spawn_failed', (error as Error).message)
  }
  // node-pty makes the child a session leader: its pid is its process group.
  const pgid = child.pid
  output.emit({ type: 'node_pty_spawn', spawn_id: args.id, pid: child.pid, pgid, binary, sandbox: policy?.mode ?? 'none', user: policy?.user?.name ?? null, model: args.model, timeout_sec: args.timeoutSec, at: new Date().toISOString() })

  const session = follow(child, pgid, args, output)
  const timer = setTimeout(() => {
    session.timedOut = true
    output.emit({ type: 'wrapper_timeout', spawn_id: args.id, timeout_sec: args.timeoutSec })
    void session.stop('timeout')
  }, args.timeoutSec * 1000)
  stopWithParent(session)

  const exit = await new Promise<{ exitCode: number, signal?: number }>(resolve => child.onExit(resolve))
  clearTimeout(timer)
  await drainLateOutput(session)
  // Whatever the agent left behind (a descendant outside its group) goes too.
  await session.stop(session.stopReason ?? 'agent_exited')
  return await output.finish(reportExit(output, args, started, exit, session))
}

async function main(): Promise<number> {
  let args: WrapperArgs
  try {
    args = parseWrapperArgs(process.argv.slice(2))
  }
  catch (error) {
    if (error instanceof WrapperUsageError) {
      process.stderr.write(`spawn-pty: ${error.message}\n`)
      return 2
    }
    throw error
  }
  return await run(args)
}

main().then(
  code => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`spawn-pty: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  },
)
