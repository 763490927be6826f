import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import type { Finished } from '#tests/helpers/processes'
import { PROCESS_TEST_TIMEOUT, runMany } from '../fixtures/processes'
import { memUserModel } from '#db/schema/mem'
import { formatForBriefing } from '../../core/user-model/briefing'
import { getProfile, UserModelError } from '../../core/user-model/profile'
import { CORE_TOKEN_BUDGET, estimateTokens } from '../../core/user-model/slices'

const PRIVATE_MARK = 'health-appointment-cardiologue'

const profile = {
  subject: 'founder@studio.test',
  communicationStyle: { tone: 'direct', language: 'français d\'abord', format: 'la décision en première ligne' },
  schedules: { appointment_slots: ['mardi 14h–16h', 'jeudi 9h–11h'], focus_hours: 'matin' },
  profile: { role: 'fondateur', company: 'Synedre' },
  skills: { strong: ['Nuxt', 'PostgreSQL'], learning: ['pgvector'] },
  history: { joined: '2019' },
  // A long cognitive section, to push the core slice past its budget.
  preferences: { cognitive: Array.from({ length: 400 }, (_, i) => `préférence cognitive numéro ${i} : des exemples concrets avant la théorie`), food: 'végétarien' },
  private: { medical: PRIVATE_MARK },
}

describeOnBothDatabases('user model', (database) => {
  it('reads nothing when there is no profile, and asks for a subject when several exist', async () => {
    const { db } = database()
    await expect(getProfile(db)).rejects.toThrow(new UserModelError('no_profile', 'the user model is empty (mem_user_model has no row)'))
    await db.insert(memUserModel).values([profile, { subject: 'operator@studio.test' }])
    await expect(getProfile(db)).rejects.toThrow(/several people have a user model/)
    await expect(getProfile(db, { subject: 'ghost@studio.test' })).rejects.toThrow(/no user model for "ghost@studio.test"/)
  })

  it('the core slice: communication style, cognitive preferences and appointment slots, never the private dimension', async () => {
    const { db } = database()
    const { profile: core } = await getProfile(db, { subject: profile.subject })
    expect(Object.keys(core)).toEqual(['communication_style', 'cognitive_preferences', 'appointment_slots'])
    expect(core.appointment_slots).toEqual(['mardi 14h–16h', 'jeudi 9h–11h'])
    expect(JSON.stringify(core)).not.toContain(PRIVATE_MARK)
    expect(JSON.stringify(core)).not.toContain('végétarien')
    const briefing = formatForBriefing(core, 'core')
    expect(estimateTokens(briefing)).toBeLessThan(CORE_TOKEN_BUDGET)
    expect(briefing).toMatch(/^## User profile \(core\)\nCommunication style:\n {2}- Tone: direct/)
    expect(briefing).toContain('Appointment slots:')
    expect(briefing.endsWith('(profile shortened to fit the briefing budget)')).toBe(true)
    expect(briefing).not.toContain(PRIVATE_MARK)
  })

  it('each dimension on its own; the private one only on explicit request', async () => {
    const { db } = database()
    expect((await getProfile(db, { subject: profile.subject, slice: 'skills' })).profile).toEqual({ skills: profile.skills })
    await expect(getProfile(db, { subject: profile.subject, slice: 'private' })).rejects.toThrow(/reserved for the primary operator/)
    expect((await getProfile(db, { subject: profile.subject, slice: 'private', allowPrivate: true })).profile).toEqual({ private: profile.private })
    const { profile: empty } = await getProfile(db, { subject: 'operator@studio.test' })
    expect(empty).toEqual({})
  })

  it('the CLI prints JSON or a briefing, and refuses bad flags (exit 2) and unknown people (exit 1)', async () => {
    const env = { DATABASE_URL: database().url }
    const [json, briefing, privateRefused, badSlice, both, unknown, privateAllowed] = await runMany('scripts/user-model.ts', [
      ['--user', profile.subject, '--json'],
      ['--user', profile.subject, '--format-briefing'],
      ['--user', profile.subject, '--slice', 'private'],
      ['--slice', 'mood'],
      ['--json', '--format-briefing'],
      ['--user', 'ghost@studio.test'],
      ['--user', profile.subject, '--slice', 'private', '--private', '--json'],
    ], env) as [Finished, Finished, Finished, Finished, Finished, Finished, Finished]
    expect(json.code, json.output).toBe(0)
    const parsed = JSON.parse(json.output.trim())
    expect(parsed).toMatchObject({ subject: profile.subject, slice: 'core' })
    expect(json.output).not.toContain(PRIVATE_MARK)
    expect(briefing.code).toBe(0)
    expect(briefing.output).toMatch(/^## User profile \(core\)/)
    expect(estimateTokens(briefing.output.trim())).toBeLessThan(CORE_TOKEN_BUDGET)
    expect(privateRefused.code).toBe(2)
    expect(privateRefused.output).toContain('add --private to read it')
    expect(badSlice.code).toBe(2)
    expect(badSlice.output).toContain('--slice must be one of core, communication_style')
    expect(both.code).toBe(2)
    expect(unknown.code).toBe(1)
    expect(unknown.output).toContain('no user model for "ghost@studio.test"')
    expect(privateAllowed.code).toBe(0)
    expect(JSON.parse(privateAllowed.output.trim()).profile).toEqual({ private: profile.private })
  }, PROCESS_TEST_TIMEOUT)
})
