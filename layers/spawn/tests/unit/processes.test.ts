// Stopping a spawn's processes: nothing to wait for when they are already gone, TERM first,
// KILL after the grace for a process that ignores TERM, and the deploy command's deadline
// stopping its whole group the same way.
import { spawn, type ChildProcess } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { isAlive, runCommand, spawnProcesses, stopSpawnProcesses } from '#layers/spawn/core/processes'

/** A shell in its own process group (pgid = its pid), as the wrapper starts the agent. */
function groupLeader(script: string): ChildProcess & { pid: number } {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' })
  return child as ChildProcess & { pid: number }
}

const exited = (child: ChildProcess) => new Promise<void>(resolve => child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))

describe('stopping a spawn\'s processes', { timeout: 30_000 }, () => {
  it('finds nothing and returns at once when the processes have already ended', async () => {
    const child = groupLeader('exit 0')
    await exited(child)
    expect(spawnProcesses({ rootPid: child.pid, pgid: child.pid })).toEqual([])
    // A grace far longer than the test's timeout: returning at all means nothing was waited for.
    expect(await stopSpawnProcesses({ rootPid: child.pid, pgid: child.pid }, 120_000)).toEqual({ termed: [], killed: [] })
  })

  it('still finds, by its group, a live child of a root that has ended', async () => {
    const child = groupLeader('sleep 30 & echo started; wait')
    await expect.poll(() => spawnProcesses({ rootPid: child.pid }).length).toBe(2)
    const sleeper = spawnProcesses({ rootPid: child.pid }).find(pid => pid !== child.pid)!
    process.kill(child.pid, 'SIGKILL')
    await exited(child)
    expect(spawnProcesses({ pgid: child.pid })).toEqual([sleeper])
    await stopSpawnProcesses({ pgid: child.pid }, 5000)
    await expect.poll(() => isAlive(sleeper)).toBe(false)
  })

  it('sends TERM first, and KILL after the grace to a process that ignores TERM', async () => {
    const polite = groupLeader('sleep 30')
    const stubborn = groupLeader('trap "" TERM; while :; do sleep 0.2; done')
    await expect.poll(() => spawnProcesses({ pgid: stubborn.pid }).length).toBeGreaterThan(0)
    const gentle = await stopSpawnProcesses({ rootPid: polite.pid, pgid: polite.pid }, 10_000)
    expect(gentle.termed).toContain(polite.pid)
    expect(gentle.killed).toEqual([])
    const forced = await stopSpawnProcesses({ rootPid: stubborn.pid, pgid: stubborn.pid }, 300)
    expect(forced.termed).toContain(stubborn.pid)
    expect(forced.killed).toContain(stubborn.pid)
    await exited(stubborn)
    expect(stubborn.signalCode).toBe('SIGKILL')
    // Its child dies a moment later (KILL is delivered, not awaited).
    await expect.poll(() => spawnProcesses({ pgid: stubborn.pid })).toEqual([])
  })

  it('stops a deploy command at its deadline, with its whole group, even when it ignores TERM', async () => {
    const result = await runCommand('trap "" TERM; echo deploying; (trap "" TERM; sleep 30) & while :; do sleep 0.2; done', { env: process.env, timeoutMs: 500, graceMs: 300 })
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null })
    expect(result.outputTail).toContain('deploying')
  })
})
