// A briefing over its token budget: the lowest-ranked lessons go first, then the reflex
// entries, the user model and the mission brief; the persona is never dropped. And the
// routing's tie-break between the agents serving one prompt domain.
import { describe, expect, it } from 'vitest'
import { fitBriefing, renderBriefing, type BriefingParts, type BriefingScar } from '../../core/briefing'
import { compareCandidates } from '../../core/routing'
import { countTokens } from '../../core/tokens'

const persona = `# You are Atlas\n${'The orchestrator reads every request before it is dispatched to the studio. '.repeat(20)}`
const lesson = (rank: number): BriefingScar => ({
  id: String(rank), title: `Lesson ranked ${rank}`, snippet: `What happened the ${rank}th time: the deploy broke the contact form again and again. `.repeat(2), agent: rank % 2 ? 'orchestrator' : null, origin: rank % 2 ? 'own' : 'global', kind: rank === 3 ? 'victory' : 'scar',
})
const parts = (scars = 6): BriefingParts => ({
  lang: 'en', persona, scars: Array.from({ length: scars }, (_, i) => lesson(i + 1)),
  mission: { title: 'Acme — mission brief', brief: 'Keep the Acme site fast and accessible; never touch the shared header.' },
  reflex: ['Always run the migrations before the deploy', 'Never log a secret'], user: '## User model\nPrefers short answers.', task: '',
})

describe('renderBriefing', () => {
  it('says "no prior knowledge found" when recall found nothing relevant, in the briefing\'s language, and nothing when recall was not asked', () => {
    const none = { ...parts(0), nothingRecalled: true }
    expect(renderBriefing(none)).toContain('## Scars to keep in mind\nNo prior knowledge found: no lesson passes the relevance floor for this task.')
    expect(renderBriefing({ ...none, lang: 'fr' })).toContain('## Cicatrices à garder en tête\nAucune connaissance antérieure trouvée')
    expect(renderBriefing(parts(0))).not.toContain('Scars to keep in mind')
    expect(renderBriefing({ ...parts(2), nothingRecalled: true })).not.toContain('No prior knowledge found')
  })
})

describe('fitBriefing', () => {
  it('keeps everything within a generous budget', () => {
    const all = parts()
    const fitted = fitBriefing(all, 100_000)
    expect(fitted.dropped).toEqual([])
    expect(fitted.text).toBe(renderBriefing(all))
    expect(fitted.tokens).toBe(countTokens(fitted.text))
    expect(fitted.text).toContain('(yours, victory) Lesson ranked 3')
  })

  it('drops the lowest-ranked lessons first, then nothing more than needed', () => {
    const all = parts()
    const full = countTokens(renderBriefing(all))
    const withoutTwo = countTokens(renderBriefing({ ...all, scars: all.scars.slice(0, 4) }))
    // A budget between "four lessons" and "five lessons": exactly the two last ranks go.
    const fitted = fitBriefing(all, withoutTwo + 1)
    expect(full).toBeGreaterThan(withoutTwo + 1)
    expect(fitted.parts.scars.map(s => s.id)).toEqual(['1', '2', '3', '4'])
    expect(fitted.dropped.map(s => s.id)).toEqual(['5', '6'])
    expect(fitted.tokens).toBeLessThanOrEqual(withoutTwo + 1)
    expect(fitted.parts.reflex).toHaveLength(2)
    expect(fitted.parts.user).not.toBeNull()
    expect(fitted.text.startsWith(persona)).toBe(true)
  })

  it('never drops the persona, even when the budget is smaller than the persona alone', () => {
    const fitted = fitBriefing(parts(), 10)
    expect(fitted.parts.scars).toEqual([])
    expect(fitted.dropped.map(s => s.id)).toEqual(['1', '2', '3', '4', '5', '6'])
    expect(fitted.parts.reflex).toEqual([])
    expect(fitted.parts.user).toBeNull()
    expect(fitted.parts.mission).toBeNull()
    expect(fitted.text).toBe(persona)
  })

  it('drops all lessons before touching the reflex memory or the user model', () => {
    const all = parts()
    const noLessons = countTokens(renderBriefing({ ...all, scars: [] }))
    const fitted = fitBriefing(all, noLessons)
    expect(fitted.parts.scars).toEqual([])
    expect(fitted.parts.reflex).toEqual(all.reflex)
    expect(fitted.parts.user).toBe(all.user)
    expect(fitted.tokens).toBe(noLessons)
  })
})

describe('routing tie-break', () => {
  const agent = (id: number, domains: string[], options: { autoSpawn?: boolean, orbite?: number } = {}) => ({
    id,
    domains,
    autoSpawn: options.autoSpawn ?? false,
    orbite: options.orbite ?? 2,
  })
  it('prefers the agent whose primary domain it is, then auto-spawn, then the inner ring, then the oldest', () => {
    const sort = (list: ReturnType<typeof agent>[]) => [...list].sort(compareCandidates('question')).map(a => a.id)
    expect(sort([agent(1, ['orchestration', 'run', 'chantier', 'question'], { autoSpawn: true }), agent(2, ['question', 'besoin'])])).toEqual([2, 1])
    expect(sort([agent(3, ['question']), agent(4, ['question'], { autoSpawn: true })])).toEqual([4, 3])
    expect(sort([agent(5, ['question'], { orbite: 3 }), agent(6, ['question'], { orbite: 1 })])).toEqual([6, 5])
    expect(sort([agent(8, ['question']), agent(7, ['question'])])).toEqual([7, 8])
  })
})
