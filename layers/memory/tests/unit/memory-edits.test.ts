// The pure parts of the memory a person edits: which reflex lines are refused, the tags a
// hand-recorded lesson carries, a tenant's brief from its configuration, the recall query of
// a new work record.
import { describe, expect, it } from 'vitest'
import { reflexRefusals } from '../../core/reflex-editor'
import { lessonTags } from '../../core/lessons-manual'
import { missionBriefOf } from '../../core/mission-briefs'
import { recallQuery, RECALL_QUERY_CHARS } from '#layers/worksites/core/pre-creation-recall'

describe('the memory a person edits', () => {
  it('refuses every reflex line over 200 characters by number, counting characters not bytes', () => {
    expect(reflexRefusals(`# T\n${'é'.repeat(200)}\n${'a'.repeat(201)}\nok\n${'b'.repeat(300)}`).map(r => [r.line, r.length])).toEqual([[3, 201], [5, 300]])
    expect(reflexRefusals('')).toEqual([])
  })

  it('tags a hand-recorded lesson with where it came from, lower-case and once', () => {
    expect(lessonTags({ tags: ['Stripe', 'stripe', ' webhook '], tenantSlug: 'acme', messageId: 7, spawnId: 'abc' }))
      .toEqual(['stripe', 'webhook', 'recorded-by-hand', 'tenant:acme', 'message:7', 'spawn:abc'])
    expect(lessonTags({})).toEqual(['recorded-by-hand'])
  })

  it('reads a mission brief only when one is written', () => {
    expect(missionBriefOf({ missionBrief: '  Bikes.  ' })).toBe('Bikes.')
    expect(missionBriefOf({ missionBrief: '   ' })).toBeNull()
    expect(missionBriefOf({ preprodUrl: 'x' })).toBeNull()
    expect(missionBriefOf(null)).toBeNull()
  })

  it('recalls on the title and the start of the body, bounded', () => {
    expect(recallQuery({ title: 'Migrate the shop', body: 'From Shopify\n\nto Nuxt.' })).toBe('Migrate the shop From Shopify to Nuxt.')
    expect(recallQuery({ title: 'Same', body: 'Same' })).toBe('Same')
    expect(recallQuery({ title: 't', body: 'x'.repeat(1000) }).length).toBe(RECALL_QUERY_CHARS)
  })
})
