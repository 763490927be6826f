// The wrapper's session with its terminal: paused while an output is full, flowing again when
// both have room, and for good once the agent is gone. node-pty destroys a terminal 200 ms
// after its child is reaped, so output left unread then (the terminal paused) would be lost.
import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { follow, type PtyChild, type SessionOutput } from '#layers/spawn/core/pty-session'

class FakeOutput extends EventEmitter {
  writableNeedDrain = false
  fill() {
    this.writableNeedDrain = true
  }

  drain() {
    this.writableNeedDrain = false
    this.emit('drain')
  }
}

const agents: ChildProcess[] = []
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill('SIGKILL')
})

/** A terminal around a real process (its pid is what the session watches), fed by hand. */
function terminal() {
  const agent = spawn('sleep', ['60'], { stdio: 'ignore' })
  agents.push(agent)
  let feed: (data: string) => void = () => {}
  const state = { paused: false, pauses: 0 }
  const child: PtyChild = {
    pid: agent.pid!,
    pause: () => {
      state.paused = true
      state.pauses += 1
    },
    resume: () => {
      state.paused = false
    },
    onData: (listener) => {
      feed = listener
      return { dispose: () => {} }
    },
  }
  const stdout = new FakeOutput()
  const log = new FakeOutput()
  const emitted: Array<Record<string, unknown>> = []
  const output: SessionOutput = {
    stdout,
    log,
    emit: (event) => {
      emitted.push(event)
      return !stdout.writableNeedDrain && !log.writableNeedDrain
    },
  }
  const session = follow(child, agent.pid!, { id: 'spawn-test', killGraceMs: 100, drainMs: 100 }, output)
  const line = (n: number) => feed(`${JSON.stringify({ type: 'stream_event', n })}\r\n`)
  return { agent, state, stdout, log, emitted, session, line }
}

describe('the wrapper\'s session with its terminal', () => {
  it('pauses while either output is full, and flows again only when both have room', () => {
    const { state, stdout, log, emitted, line } = terminal()
    line(1)
    expect(state.paused).toBe(false)
    stdout.fill()
    log.fill()
    line(2)
    expect(state.paused).toBe(true)
    log.drain()
    expect(state.paused).toBe(true)
    stdout.drain()
    expect(state.paused).toBe(false)
    expect(emitted.map(e => e.n)).toEqual([1, 2])
  })

  it('flows for good once the agent has ended while paused, so its last output is read before node-pty closes the terminal', async () => {
    const { agent, state, stdout, emitted, line } = terminal()
    stdout.fill()
    line(1)
    expect(state.paused).toBe(true)
    const ended = new Promise(resolve => agent.once('exit', resolve))
    agent.kill('SIGKILL')
    await ended
    await expect.poll(() => state.paused, { timeout: 5000, interval: 5 }).toBe(false)
    line(2)
    line(3)
    expect(state).toMatchObject({ paused: false, pauses: 1 })
    expect(emitted.map(e => e.n)).toEqual([1, 2, 3])
  })

  it('stays paused while the agent lives and its outputs are full', async () => {
    const { state, stdout, line } = terminal()
    stdout.fill()
    line(1)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(state.paused).toBe(true)
  })
})
