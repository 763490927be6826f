// The wrapper's hold on a running agent (scripts/spawn-pty.ts): its terminal's output turned
// into events on both outputs, paused while an output is full, the stop once, the late output
// after the exit, and the last event.
import type { IPty } from 'node-pty'
import { isAlive, stopSpawnProcesses } from './processes'
import { createLineSplitter, type NoiseEvent, type StreamEvent } from './stream'
import type { WrapperArgs } from './wrapper-args'

/** What the session needs of the terminal (node-pty's IPty). */
export type PtyChild = Pick<IPty, 'pid' | 'pause' | 'resume' | 'onData'>

/** An output the session writes to: its room, and its drain. */
interface Drained {
  readonly writableNeedDrain: boolean
  on: (event: 'drain', listener: () => void) => unknown
}

/** The wrapper's two outputs, every event written to both. */
export interface SessionOutput {
  stdout: Drained
  log: Drained
  /** Writes the event to both; false when either asks to wait for its drain. */
  emit: (event: Record<string, unknown>) => boolean
}

/** A running agent as the wrapper follows it: what it said, and why and how it is being stopped. */
export interface Session {
  splitter: ReturnType<typeof createLineSplitter>
  result: StreamEvent | null
  timedOut: boolean
  parentGone: boolean
  stopReason: string | null
  lastDataAt: number
  /** Stops the agent's group once, whoever asks first giving the reason. */
  stop: (reason: string) => Promise<unknown>
  /** Lets the terminal flow again after a pause for a full output. */
  resume: () => void
  /** The agent has ended: the terminal flows for good, whatever the outputs hold. */
  agentGone: () => void
  /** Emits the terminal's events, pausing it while an output is full; the first result schedules the stop. */
  handle: (events: Array<StreamEvent | NoiseEvent>) => void
}

export function follow(child: PtyChild, pgid: number, args: Pick<WrapperArgs, 'id' | 'killGraceMs' | 'drainMs'>, output: SessionOutput): Session {
  let stopping: Promise<unknown> | null = null
  let paused = false
  let childGone = false
  const session: Session = {
    splitter: createLineSplitter(),
    result: null,
    timedOut: false,
    parentGone: false,
    stopReason: null,
    lastDataAt: Date.now(),
    stop: (reason) => {
      session.stopReason ??= reason
      stopping ??= stopSpawnProcesses({ pgid, rootPid: child.pid, spawnId: args.id }, args.killGraceMs)
      return stopping
    },
    resume: () => {
      // Both outputs must have room again (either one's drain calls this), unless the agent is gone.
      if (!paused || (!childGone && (output.stdout.writableNeedDrain || output.log.writableNeedDrain))) return
      paused = false
      child.resume()
    },
    agentGone: () => {
      childGone = true
      session.resume()
    },
    handle: (events) => {
      let flowing = true
      for (const event of events) {
        flowing = output.emit(event) && flowing
        if (event.type === 'result' && !session.result) {
          session.result = event as StreamEvent
          // The result is the end: give the last lines a moment, then stop the lingering CLI.
          setTimeout(() => void session.stop('result_received'), args.drainMs).unref()
        }
      }
      if (!flowing && !paused && !childGone) {
        paused = true
        child.pause()
        watchExitWhilePaused()
      }
    },
  }
  // node-pty destroys the terminal 200 ms after its child is reaped: output still unread then,
  // because the terminal is paused for a full output, would be lost. While paused, the child
  // is watched, and once it is gone the terminal flows for good (what is left is bounded by
  // the terminal's own buffer: nothing writes any more).
  const watchExitWhilePaused = () => {
    const watch = setInterval(() => {
      if (!paused) clearInterval(watch)
      else if (!isAlive(child.pid)) {
        clearInterval(watch)
        session.agentGone()
      }
    }, 20)
  }
  output.stdout.on('drain', session.resume)
  output.log.on('drain', session.resume)
  child.onData((data) => {
    session.lastDataAt = Date.now()
    session.handle(session.splitter.push(data))
  })
  return session
}

/**
 * Late chunks may still be in flight: node-pty can report a fast child's exit before its last
 * output, later still on a busy machine. Wait while output keeps coming, and up to 2 s while
 * the result line has not arrived; then the last line, even without its newline.
 */
export async function drainLateOutput(session: Session): Promise<void> {
  session.agentGone()
  const exitedAt = Date.now()
  const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
  await sleep(50)
  while (Date.now() - exitedAt < 2000 && (Date.now() - session.lastDataAt < 100 || !session.result)) await sleep(25)
  session.handle(session.splitter.end())
}

/** The last event (how the agent ended and what the wrapper saw) and the exit code it gives. */
export function reportExit(
  output: SessionOutput,
  args: Pick<WrapperArgs, 'id'>,
  started: number,
  exit: { exitCode: number, signal?: number },
  session: Session,
): number {
  const finalResult = session.result
  const isError = finalResult ? finalResult.is_error === true : null
  const stats = session.splitter.stats()
  output.emit({
    type: 'node_pty_exit',
    spawn_id: args.id,
    exit_code: exit.exitCode,
    signal: exit.signal || null,
    result_seen: finalResult !== null,
    is_error: isError,
    timed_out: session.timedOut,
    parent_gone: session.parentGone,
    stopped_because: session.stopReason,
    events: stats.events,
    noise_lines: stats.noiseLines,
    dropped_long_lines: stats.droppedLongLines,
    duration_ms: Date.now() - started,
    max_rss_bytes: process.resourceUsage().maxRSS * 1024,
  })
  if (session.timedOut) return 1
  if (finalResult) return isError ? 1 : 0
  return exit.exitCode === 0 && !exit.signal ? 0 : 1
}
