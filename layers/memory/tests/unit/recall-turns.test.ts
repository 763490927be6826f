// Recalls take turns (turns.ts): at most the limit at once, first come first served, a turn
// given back however the work ends, and the limit read from RECALL_CONCURRENCY or the cores.
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { createTurns, turnsFor, turnsLimit, TurnsConfigError } from '../../core/recall/turns'

const tick = () => new Promise(resolve => setTimeout(resolve, 1))

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

describe('recall turns', () => {
  it('runs at most the limit at once, the others in the order they came', async () => {
    const turns = createTurns(2)
    const started: number[] = []
    let running = 0
    let most = 0
    const gates = Array.from({ length: 6 }, deferred)
    const runs = gates.map((gate, i) => turns.run(async () => {
      started.push(i)
      most = Math.max(most, ++running)
      await gate.promise
      running--
      return i
    }))
    await tick()
    expect(started).toEqual([0, 1])
    expect(turns.waiting).toBe(4)
    gates[1]!.resolve()
    await tick()
    expect(started).toEqual([0, 1, 2])
    // A newcomer arriving now waits behind the three already in line.
    const late = turns.run(async () => 'late')
    gates.forEach(gate => gate.resolve())
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5])
    expect(await late).toBe('late')
    expect(started).toEqual([0, 1, 2, 3, 4, 5])
    expect(most).toBe(2)
    expect(turns.waiting).toBe(0)
  })

  it('gives the turn back when the work fails', async () => {
    const turns = createTurns(1)
    await expect(turns.run(async () => {
      throw new Error('statement failed')
    })).rejects.toThrow('statement failed')
    expect(await turns.run(async () => 'next')).toBe('next')
  })

  it('takes RECALL_CONCURRENCY, or one turn per core, and refuses a limit that is not a whole number of 1 or more', () => {
    expect(turnsLimit({})).toBe(availableParallelism())
    expect(turnsLimit({ RECALL_CONCURRENCY: ' 3 ' })).toBe(3)
    for (const bad of ['0', '-1', '2.5', 'two', '100000']) expect(() => turnsLimit({ RECALL_CONCURRENCY: bad })).toThrow(TurnsConfigError)
    expect(() => createTurns(0)).toThrow(TurnsConfigError)
  })

  it('keeps one set of turns per database handle', () => {
    const a = {}
    expect(turnsFor(a, { RECALL_CONCURRENCY: '3' })).toBe(turnsFor(a, {}))
    expect(turnsFor(a, {}).limit).toBe(3)
    expect(turnsFor({}, { RECALL_CONCURRENCY: '5' }).limit).toBe(5)
  })
})
