// Linking a tenant's mails into threads: by In-Reply-To / References whatever the subject, by
// the same subject (prefixes and case aside) only within 14 days, a sent reply on the mail it
// answers, a reply to a mail outside the set dropped; newest thread first.
import { describe, expect, it } from 'vitest'
import { linkThreads, normaliseSubject, type ThreadMail } from '../../core/nightly/mail-thread'

const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 1)
const mail = (id: number, values: Partial<ThreadMail> & { day: number }): ThreadMail => ({
  id, direction: 'inbound', messageId: `<m${id}@x>`, inReplyTo: null, references: [], subject: '', from: 'a@acme.fr', body: '', ...values, at: new Date(T0 + values.day * DAY),
})

describe('mail threads', () => {
  it('strips reply and forward prefixes, case and spacing', () => {
    expect(normaliseSubject('RE: Fwd: TR:  Quote   Export')).toBe('quote export')
    expect(normaliseSubject('Re[2]: Quote export')).toBe('quote export')
    expect(normaliseSubject('Quote export: Re: totals')).toBe('quote export: re: totals')
  })

  it('links by headers across subjects, by subject only within 14 days, and hangs sent replies on their mail', () => {
    const threads = linkThreads([
      mail(1, { day: 0, subject: 'Quote export' }),
      mail(2, { day: 1, subject: 'Something else entirely', inReplyTo: '<M1@X>', direction: 'outbound' }),
      mail(3, { day: 2, subject: 'New topic', references: ['<unknown@x>', '<m2@x>'] }),
      mail(4, { day: 10, subject: 're: quote export' }),
      mail(5, { day: 30, subject: 'Quote export' }),
      mail(6, { day: 31, subject: 'Invoice' }),
    ], [{ id: 7, answers: 4, at: new Date(T0 + 11 * DAY), by: 'ops', body: 'ok' }, { id: 8, answers: 99, at: new Date(T0), by: 'ops', body: 'lost' }])
    expect(threads.map(t => [t.mails.map(m => m.id), t.replies.map(r => r.id)])).toEqual([[[6], []], [[5], []], [[1, 2, 3, 4], [7]]])
    expect(threads[2]!.lastAt.toISOString()).toBe(new Date(T0 + 11 * DAY).toISOString())
  })
})
