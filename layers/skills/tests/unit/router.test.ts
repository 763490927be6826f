// The skill router offline over 32 skills and 60+ FR/EN requests: each threshold branch,
// the two-skill cap, a forced skill kept, and the decision's scores.
import { describe, expect, it } from 'vitest'
import { buildSkillIndex, DEFAULT_ROUTER_SETTINGS, forcedNames, routeSkills } from '../../core/router'
import { REQUESTS, SKILL_SET } from './router-set'

const index = buildSkillIndex(SKILL_SET)

describe('the skill router, offline', () => {
  it('has a set of at least 30 skills and 60 requests, French and English', () => {
    expect(SKILL_SET.length).toBeGreaterThanOrEqual(30)
    expect(REQUESTS.length).toBeGreaterThanOrEqual(60)
    expect(new Set(REQUESTS.map(([, , branch]) => branch))).toEqual(new Set(['high', 'low', 'no_candidate', 'ambiguous_offline']))
  })

  it.each(REQUESTS)('%s → %j (%s)', async (request, expected, branch) => {
    const decision = await routeSkills(index, { request })
    expect(decision.branch).toBe(branch)
    expect(decision.kept.map(k => k.name)).toEqual(expected)
    expect(decision.kept.every(k => k.mode === 'auto')).toBe(true)
    // Every candidate not kept is in the log with its score and a reason.
    expect(decision.kept.length + decision.dropped.length).toBe(decision.candidates.length)
    for (const entry of decision.dropped) expect(entry.reason).toMatch(/\w/)
    expect(decision.candidates.length).toBeLessThanOrEqual(DEFAULT_ROUTER_SETTINGS.topK)
  })

  it('applies at most two automatic skills, the third above the threshold is dropped as "cap"', async () => {
    const decision = await routeSkills(index, { request: 'Write a recap of the meeting, draft an email to the client and prepare an invoice with VAT', settings: { ...DEFAULT_ROUTER_SETTINGS, high: 0.3 } })
    expect(decision.branch).toBe('high')
    expect(decision.kept).toHaveLength(2)
    const capped = decision.dropped.filter(d => d.reason === 'cap')
    expect(capped.length).toBeGreaterThanOrEqual(1)
    expect(capped.every(d => (d.score ?? 0) >= 0.3)).toBe(true)
  })

  it('never drops a forced /name skill, even below the low threshold, and does not count it in the cap', async () => {
    expect(forcedNames('please /write-a-tweet-thread about it, and /nope.')).toEqual(['write-a-tweet-thread', 'nope'])
    const decision = await routeSkills(index, { request: '/write-a-tweet-thread Write a recap of the meeting and draft an email to the client' })
    expect(decision.kept.map(k => [k.name, k.mode])).toEqual([['write-a-tweet-thread', 'forced'], ['draft-client-email', 'auto'], ['write-a-recap', 'auto']])
    const weather = await routeSkills(index, { request: 'What is the weather in Lyon? /okr-drafting', forced: ['analyse-churn'] })
    expect(weather.branch).toBe('low')
    expect(weather.kept.map(k => k.name)).toEqual(['analyse-churn', 'okr-drafting'])
  })

  it('reports an unknown forced name as dropped, with the reason', async () => {
    const decision = await routeSkills(index, { request: '/no-such-skill hello' })
    expect(decision.dropped[0]).toMatchObject({ name: 'no-such-skill', reason: expect.stringContaining('forced_unknown') })
  })

  it('between the thresholds, the run\'s model chooses among the candidates only, within the cap', async () => {
    const seen: string[][] = []
    const decision = await routeSkills(index, {
      request: 'Un texte sur la réunion',
      choose: async (_request, candidates) => {
        seen.push(candidates.map(c => c.name))
        return ['prepare-a-meeting-agenda', 'not-a-candidate', 'write-a-recap', 'okr-drafting']
      },
    })
    expect(decision.branch).toBe('model')
    expect(seen[0]).toContain('write-a-recap')
    expect(decision.kept.map(k => k.mode)).toEqual(['model', 'model'])
    expect(decision.kept.map(k => k.name).sort()).toEqual(['prepare-a-meeting-agenda', 'write-a-recap'])
  })

  it('the thresholds are settings: a stricter high threshold sends a clear request to the model branch', async () => {
    const decision = await routeSkills(index, { request: 'Triage this bug report please', settings: { ...DEFAULT_ROUTER_SETTINGS, high: 0.99 } })
    expect(decision.branch).toBe('ambiguous_offline')
    expect(decision.kept).toEqual([])
    expect(decision.dropped[0]).toMatchObject({ name: 'triage-a-bug-report', reason: expect.stringContaining('ambiguous_offline') })
  })
})
