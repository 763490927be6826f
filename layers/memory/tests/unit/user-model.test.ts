import { describe, expect, it } from 'vitest'
import { formatForBriefing } from '../../core/user-model/briefing'
import { coreSlice, sliceOf } from '../../core/user-model/profile'
import { CORE_TOKEN_BUDGET, estimateTokens, isUserSlice } from '../../core/user-model/slices'
import type { MemUserModelRow } from '#db/schema/mem'

const row: MemUserModelRow = {
  subject: 'me',
  communicationStyle: { tone: 'direct' },
  schedules: { slots: ['lundi 10h'] },
  profile: {},
  skills: {},
  history: {},
  preferences: { cognitive: { examples: 'first' }, private: 'not this' },
  private: { secret: 'never in core' },
  updatedAt: new Date(),
}

describe('user model slices', () => {
  it('core = communication style + cognitive preferences + appointment slots; never the private column', () => {
    expect(coreSlice(row)).toEqual({ communication_style: { tone: 'direct' }, cognitive_preferences: { examples: 'first' }, appointment_slots: ['lundi 10h'] })
    expect(JSON.stringify(sliceOf(row, 'core', { allowPrivate: true }))).not.toContain('never in core')
    expect(coreSlice({ ...row, communicationStyle: {}, preferences: {}, schedules: {} })).toEqual({})
  })

  it('private only when allowed; unknown slices refused', () => {
    expect(() => sliceOf(row, 'private')).toThrow(/reserved for the primary operator/)
    expect(sliceOf(row, 'private', { allowPrivate: true })).toEqual({ private: { secret: 'never in core' } })
    expect(() => sliceOf(row, 'mood' as never)).toThrow(/unknown slice mood/)
    expect(isUserSlice('core')).toBe(true)
    expect(isUserSlice('mood')).toBe(false)
  })
})

describe('briefing text', () => {
  it('renders nested values as indented lists', () => {
    expect(formatForBriefing(coreSlice(row))).toBe([
      '## User profile (core)',
      'Communication style:',
      '  - Tone: direct',
      'Cognitive preferences:',
      '  - Examples: first',
      'Appointment slots:',
      '  - lundi 10h',
    ].join('\n'))
  })

  it('stays under the 1,000-token budget, every section keeping its head', () => {
    const big = {
      communication_style: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`rule_${i}`, 'une règle de style assez longue pour compter'])),
      cognitive_preferences: Array.from({ length: 300 }, (_, i) => `préférence ${i}`),
      appointment_slots: ['mardi 14h', 'jeudi 9h'],
    }
    const text = formatForBriefing(big, 'core')
    expect(estimateTokens(text)).toBeLessThan(CORE_TOKEN_BUDGET)
    expect(text).toContain('  - Rule 0: une règle de style')
    expect(text).toContain('  - préférence 0')
    expect(text).toContain('  - mardi 14h')
    expect(text).toMatch(/ {2}- … \(\d+ more\)/)
    expect(text.endsWith('(profile shortened to fit the briefing budget)')).toBe(true)
    // Other slices are not cut.
    expect(formatForBriefing({ history: big.cognitive_preferences }, 'history')).toContain('préférence 299')
  })

  it('estimates tokens conservatively (at least a token per 3 characters, per word or mark)', () => {
    expect(estimateTokens('')).toBe(0)
    expect(estimateTokens('abcdef')).toBe(2)
    expect(estimateTokens('a b c d')).toBe(4)
    expect(estimateTokens('!!!!')).toBe(4)
  })
})
