// The scar order of a briefing: the agent's own scars first, then global ones to fill up to
// k, never another agent's; and the briefing's bad inputs.
import { describe, expect, it } from 'vitest'
import { relevantScars, validateBriefingRequest, type ScarHit, type ScarRecall } from '../../core/briefing'
import { AgentsError } from '../../core/errors'
import { parseDomains } from '../../core/families'
import { liveState } from '../../core/heartbeats'

const SCARS: ScarHit[] = [
  { id: '1', title: 'Global lesson A', snippet: 'a', agent: null },
  { id: '2', title: 'Other agent lesson', snippet: 'b', agent: 'frontend' },
  { id: '3', title: 'Own lesson', snippet: 'c', agent: 'securite' },
  { id: '4', title: 'Global lesson B', snippet: 'd', agent: null },
  { id: '5', title: 'Own lesson 2', snippet: 'e', agent: 'securite' },
]

/** A recall that ranks by list order and honours the agent filter, like the engine. */
const fakeRecall = (calls: { agent: string | null, k: number }[]): ScarRecall => async ({ agent, k }) => {
  calls.push({ agent, k })
  return SCARS.filter(hit => agent === null || hit.agent === agent).slice(0, k)
}

describe('relevantScars', () => {
  it('serves the agent\'s own scars before global ones, and never another agent\'s', async () => {
    const calls: { agent: string | null, k: number }[] = []
    const scars = await relevantScars(fakeRecall(calls), { task: 'leak', codename: 'securite', k: 4 })
    expect(scars.map(s => [s.id, s.origin])).toEqual([['3', 'own'], ['5', 'own'], ['1', 'global'], ['4', 'global']])
    expect(calls[0]).toEqual({ agent: 'securite', k: 4 })
    expect(calls[1]!.agent).toBeNull()
  })

  it('does not ask for global scars when the own ones fill k', async () => {
    const calls: { agent: string | null, k: number }[] = []
    const scars = await relevantScars(fakeRecall(calls), { task: 'leak', codename: 'securite', k: 2 })
    expect(scars.map(s => s.origin)).toEqual(['own', 'own'])
    expect(calls).toHaveLength(1)
  })

  it('fills with global scars only for an agent without scars', async () => {
    const scars = await relevantScars(fakeRecall([]), { task: 'x', codename: 'podcast', k: 3 })
    expect(scars.map(s => s.id)).toEqual(['1', '4'])
    expect(scars.every(s => s.origin === 'global')).toBe(true)
  })
})

describe('briefing inputs', () => {
  it('defaults to the metier tier in English with three scars', () => {
    expect(validateBriefingRequest({ codename: 'x' })).toEqual({ tier: 'metier', lang: 'en', k: 3, task: '' })
  })

  it.each([
    [{ tier: 'huge' }, /tier/],
    [{ lang: 'de' }, /language/],
    [{ scars: -1 }, /scars/],
    [{ scars: 2.5 }, /scars/],
    [{ task: 'x'.repeat(6001) }, /6000/],
  ])('rejects %o', (patch, message) => {
    expect(() => validateBriefingRequest({ codename: 'x', ...(patch as object) })).toThrow(message)
    expect(() => validateBriefingRequest({ codename: 'x', ...(patch as object) })).toThrow(AgentsError)
  })
})

describe('helpers', () => {
  it('parses a CSV of prompt domains', () => {
    expect(parseDomains(' Contenu, faq,,cover , faq')).toEqual(['contenu', 'faq', 'cover'])
    expect(parseDomains(null)).toEqual([])
  })

  it('reads the live state from the last heartbeat', () => {
    const now = new Date('2026-11-30T12:00:00Z')
    expect(liveState(null, now)).toBe('dormant')
    expect(liveState({ state: 'working', beatAt: new Date('2026-11-30T11:58:00Z') }, now)).toBe('working')
    expect(liveState({ state: 'working', beatAt: '2026-11-30T11:00:00Z' }, now)).toBe('silent')
  })
})
