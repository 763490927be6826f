// The soak's rules without a process: where a message stands at the end (states.ts, from
// atlas_inbox's statuses and the admission rule), which victim a kill takes (kills.ts), and
// the process tree a group kill must take down (process-tree.ts, on a real sh with a child).
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { Victim } from '../soak/chaos'
import type { KillRecord } from '../soak/invariants'
import { pickVictim } from '../soak/kills'
import { killGroup, stillRunning } from '../soak/process-tree'
import { seededRandom } from '../soak/chaos'
import { standingOf, tally, TERMINAL_STATUSES } from '../soak/states'

const state = (status: string, more: Partial<{ intent: string | null, admission: string | null, classifyAttempts: number }> = {}) =>
  ({ status, intent: 'question', admission: 'approved', classifyAttempts: 1, ...more })

describe('where a message stands once the soak stops injecting', () => {
  it.each(TERMINAL_STATUSES)('%s is terminal', (status) => {
    expect(standingOf(state(status), 3).standing).toBe('terminal')
  })

  it.each([
    ['awaiting_approval', {}],
    ['classification_failed', { classifyAttempts: 3 }],
    ['classified', { intent: 'noise', admission: null }],
    ['classified', { intent: 'conseil', admission: null }],
  ] as const)('%s %j waits for a person', (status, more) => {
    expect(standingOf(state(status, more), 3).standing).toBe('person')
  })

  it.each([
    ['received', {}],
    ['classification_failed', { classifyAttempts: 2 }],
    ['classified', { admission: 'auto' }],
    ['classified', { admission: 'approved' }],
    ['spawn_queued', {}],
    ['spawning', {}],
    ['deploying', {}],
    ['qa', {}],
    ['no_such_status', {}],
  ] as const)('%s %j waits on the system: a settled soak has none', (status, more) => {
    expect(standingOf(state(status, more), 3).standing).toBe('system')
  })

  it('counts by standing and status', () => {
    expect(tally([state('actioned'), state('actioned'), state('awaiting_approval'), state('received')], 3))
      .toEqual({ terminal: { actioned: 2 }, person: { awaiting_approval: 1 }, system: { received: 1 } })
  })
})

describe('the victim of a kill', () => {
  const victim = (name: string, kind: Victim['kind'], pgid: number | null = 100): Victim => ({ name, kind, pgid: () => pgid, starts: () => 1, stop: async () => {} })
  const child = { pid: 2, startedAt: 0, command: 'child' }
  const killed = (kind: KillRecord['kind'], children = true): KillRecord => ({ at: 0, service: kind, kind, pid: 1, members: children ? [child, child] : [child], survivors: [] })
  const none = () => false
  const victims = [victim('collector', 'process'), victim('worker-1', 'process'), victim('database', 'database'), victim('hub-server', 'hub')]

  it('is drawn among the running ones, reproducibly from the seed', () => {
    const draw = (seed: number) =>
      Array.from(
        { length: 20 },
        (
          random => () =>
            pickVictim(victims, random, [], 100, none)!.name
        )(seededRandom(seed)),
      )
    expect(draw(22)).toEqual(draw(22))
    expect(pickVictim([victim('down', 'process', null), victim('up', 'process')], seededRandom(1), [], 100, none)!.name).toBe('up')
    expect(pickVictim([victim('down', 'process', null)], seededRandom(1), [], 100, none)).toBeNull()
  })

  it('is a kind never killed yet when the kills left would not otherwise cover every kind', () => {
    const random = seededRandom(3)
    for (let i = 0; i < 20; i++) expect(pickVictim(victims, random, [killed('process'), killed('database')], 1, none)!.kind).toBe('hub')
    for (let i = 0; i < 20; i++) expect(['database', 'hub']).toContain(pickVictim(victims, random, [killed('process')], 2, none)!.kind)
  })

  it('is a group with children when no kill took one yet and few kills are left', () => {
    const random = seededRandom(4)
    const kinds = [killed('process', false), killed('database', false), killed('hub', false)]
    for (let i = 0; i < 20; i++) expect(pickVictim(victims, random, kinds, 1, victim => victim.name === 'worker-1')!.name).toBe('worker-1')
  })

  it('is none while what the last kills must cover is not running, so the soak draws again soon', () => {
    const kinds = [killed('process', false), killed('database', false), killed('hub', false)]
    expect(pickVictim(victims, seededRandom(5), kinds, 1, none)).toBeNull()
    expect(pickVictim(victims, seededRandom(5), kinds, 5, none)).not.toBeNull()
  })
})

describe('a process group killed', () => {
  it('takes the leader and its children, and nothing of them is left running', async () => {
    const leader = spawn('/bin/sh', ['-c', 'sleep 60 & sleep 60 & wait'], { detached: true, stdio: 'ignore' })
    const exited = new Promise(resolve => leader.once('exit', resolve))
    await new Promise(resolve => setTimeout(resolve, 300))
    const members = killGroup(leader.pid!)
    expect(members.map(member => member.command).sort()).toEqual(['sh', 'sleep', 'sleep'])
    await exited
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(stillRunning(members)).toEqual([])
  })
})
