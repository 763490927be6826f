// The roster as data: the seed's distribution and named agents, complete narratives in
// French and English, and every tier of every agent within its budget (±20 %), counted
// with a real tokenizer (o200k_base).
import { describe, expect, it } from 'vitest'
import { AGENT_FAMILIES as SCHEMA_FAMILIES } from '#db/schema/agents'
import { AGENT_FAMILIES, CODENAME_PATTERN, REACTOR_RING, RING_MOTION } from '../../core/families'
import { previewTiers, renderTier, TIER_BUDGETS, TIERS, withinBudget, type PersonaSource } from '../../core/persona'
import { RELATIONSHIPS, ROSTER, rosterRow } from '../../core/roster/index'
import { countTokens } from '../../core/tokens'

const rows = ROSTER.map(agent => rosterRow(agent) as PersonaSource & ReturnType<typeof rosterRow>)

describe('the roster', () => {
  it('has about thirty agents with unique kebab-case codenames and unique nicknames', () => {
    expect(ROSTER.length).toBe(30)
    expect(new Set(ROSTER.map(a => a.codename)).size).toBe(ROSTER.length)
    expect(new Set(ROSTER.map(a => a.nickname)).size).toBe(ROSTER.length)
    for (const agent of ROSTER) expect(agent.codename, agent.codename).toMatch(CODENAME_PATTERN)
  })

  it('matches the seed\'s distribution over stored ring × family', () => {
    const count = (ring: number, family: string) => ROSTER.filter(a => a.ring === ring && a.family === family).length
    expect(count(1, 'direction')).toBe(4)
    expect(count(1, 'cadrage')).toBe(3)
    expect(count(2, 'cadrage')).toBe(2)
    expect(count(2, 'validation')).toBe(8)
    expect(count(3, 'execution')).toBe(12)
    expect(count(3, 'validation')).toBe(1)
  })

  it('holds the named agents in their families and rings', () => {
    const where = (nickname: string) => {
      const agent = ROSTER.find(a => a.nickname === nickname)
      return agent && `${agent.family}/${agent.ring}`
    }
    for (const name of ['Atlas', 'Hill', 'Colbert', 'Winnicott']) expect(where(name), name).toBe('direction/1')
    for (const name of ['Montesquieu', 'Gauss', 'Clausewitz']) expect(where(name), name).toBe('cadrage/1')
    for (const name of ['Marco Polo', 'Socrate']) expect(where(name), name).toBe('cadrage/2')
    for (const name of ['Otlet', 'Mitnick', 'Itten']) expect(where(name), name).toBe('validation/2')
    expect(where('Nightingale')).toBe('validation/3')
    expect(ROSTER.find(a => a.nickname === 'Atlas')!.codename).toBe('orchestrator')
    expect(ROSTER.find(a => a.nickname === 'Mitnick')!.codename).toBe('securite')
  })

  it('gives every agent every narrative field in both languages, four cognitive dimensions and prompt domains', () => {
    for (const agent of ROSTER) {
      for (const lang of ['fr', 'en'] as const) {
        const n = agent[lang]
        const { frame, keyChecks, ...fields } = n
        for (const [field, value] of Object.entries({ ...fields, ...frame, keyChecks: keyChecks.join(' ') })) expect(String(value).trim().length, `${agent.codename}.${lang}.${field}`).toBeGreaterThan(3)
        expect(keyChecks.length, agent.codename).toBeGreaterThanOrEqual(3)
      }
      expect(agent.fr.mission).not.toBe(agent.en.mission)
      expect(agent.domains.length, agent.codename).toBeGreaterThan(0)
    }
  })

  it('routes each generation domain of the seed to at least one agent', () => {
    for (const domain of ['contenu', 'faq', 'cover', 'podcast', 'linkedin', 'reels']) {
      expect(ROSTER.filter(a => a.domains.includes(domain)).length, domain).toBeGreaterThan(0)
    }
  })

  it('relationships join known agents, never an agent to itself', () => {
    const known = new Set(ROSTER.map(a => a.codename))
    for (const r of RELATIONSHIPS) {
      expect(known.has(r.from) && known.has(r.to), `${r.from} → ${r.to}`).toBe(true)
      expect(r.from).not.toBe(r.to)
    }
  })
})

describe('persona tiers', () => {
  it.each(['en', 'fr'] as const)('every seeded agent\'s three tiers fall within their budgets ±20 %% (%s)', (lang) => {
    const outside: string[] = []
    for (const row of rows) {
      for (const preview of previewTiers(row, lang)) {
        if (!withinBudget(preview.tokens, preview.tier)) outside.push(`${row.codename} ${preview.tier} ${preview.tokens} (budget ${preview.budget})`)
      }
    }
    expect(outside).toEqual([])
  })

  it('builds each tier on the previous one: core ⊂ metier ⊂ full', () => {
    for (const row of rows) {
      const [core, metier, full] = TIERS.map(tier => renderTier(row, tier, 'en'))
      expect(metier!.startsWith(core!)).toBe(true)
      expect(full!.startsWith(metier!)).toBe(true)
    }
  })

  it('puts the cognitive frame in every tier, the business scope from metier on, the rich identity in full only', () => {
    const atlas = rows.find(r => r.codename === 'orchestrator')!
    const core = renderTier(atlas, 'core', 'en')
    const metier = renderTier(atlas, 'metier', 'en')
    const full = renderTier(atlas, 'full', 'en')
    expect(core).toContain(atlas.cognitiveFrameEn)
    expect(core).not.toContain(atlas.jobMissionEn)
    expect(metier).toContain(atlas.jobMissionEn)
    expect(metier).toContain(atlas.jobKeyChecksEn)
    expect(metier).not.toContain(atlas.quoteEn)
    for (const field of [atlas.heritageEn, atlas.quoteEn, atlas.personalityEn, atlas.inspirationEn, atlas.proofEn])
      expect(full).toContain(field)
    expect(renderTier(atlas, 'core', 'fr')).toContain(atlas.cognitiveFrame)
  })

  it('falls back to French when an English column is empty', () => {
    const atlas = { ...rows.find(r => r.codename === 'orchestrator')!, cognitiveFrameEn: '' }
    expect(renderTier(atlas, 'core', 'en')).toContain(atlas.cognitiveFrame)
  })

  it('counts tokens with the o200k_base encoding, not a character heuristic', () => {
    expect(countTokens('')).toBe(0)
    expect(countTokens('hello world')).toBe(2)
    expect(countTokens('a'.repeat(400))).toBeLessThan(100)
    expect(TIER_BUDGETS).toEqual({ core: 150, metier: 350, full: 600 })
  })
})

describe('the reactor lookup', () => {
  it('draws the ring from the family: direction 1, cadrage and execution 2, validation 3', () => {
    expect(REACTOR_RING).toEqual({ direction: 1, cadrage: 2, execution: 2, validation: 3 })
    expect(RING_MOTION[1]).toMatchObject({ periodS: 60, clockwise: true })
    expect(RING_MOTION[2]).toMatchObject({ periodS: 90, clockwise: false })
    expect(RING_MOTION[3]).toMatchObject({ periodS: 120, clockwise: true })
  })

  it('lists the same families as the schema', () => {
    expect(AGENT_FAMILIES).toEqual(SCHEMA_FAMILIES)
  })
})
