// The Activity page's record on both databases: hub_audit and atlas_audit in one list,
// newest first, filtered by source, actor, action and time, paged without gaps; and its CSV.
import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { activityCsv, listActivity } from '../../server/core/activity'

describeOnBothDatabases('activity: the audit trails', (database) => {
  it('merges both trails newest first, filters them and pages through them', async () => {
    const { db } = database()
    await db.execute(sql`insert into hub_audit (at, actor, action, target, details) values
      ('2026-03-01T10:00:00Z', 'alex@studio.test', 'automation_disabled', 'atlas-collect', '{}'),
      ('2026-03-01T12:00:00Z', 'sam@studio.test', 'note_promoted', 'inbox/a.md', '{"to":"permanent"}')`)
    await db.execute(sql`insert into atlas_audit (at, actor, action, details) values
      ('2026-03-01T11:00:00Z', 'atlas-collect', 'uidvalidity_changed', '{"mailbox":"INBOX"}'),
      ('2026-03-02T09:00:00Z', 'alex@studio.test', 'mail_refused', '{}')`)

    const all = await listActivity(db, { limit: 10 })
    expect(all.items.map(entry => [entry.source, entry.action])).toEqual([
      ['atlas', 'mail_refused'], ['hub', 'note_promoted'], ['atlas', 'uidvalidity_changed'], ['hub', 'automation_disabled'],
    ])
    expect(all.actions).toEqual(['automation_disabled', 'mail_refused', 'note_promoted', 'uidvalidity_changed'])

    expect((await listActivity(db, { actor: 'ALEX', limit: 10 })).items.map(entry => entry.action)).toEqual(['mail_refused', 'automation_disabled'])
    expect((await listActivity(db, { source: 'hub', limit: 10 })).items).toHaveLength(2)
    expect((await listActivity(db, { action: 'note_promoted', limit: 10 })).items[0]).toMatchObject({ actor: 'sam@studio.test', target: 'inbox/a.md', details: { to: 'permanent' } })
    const day = await listActivity(db, { since: new Date('2026-03-01T00:00:00Z'), until: new Date('2026-03-02T00:00:00Z'), limit: 10 })
    expect(day.items).toHaveLength(3)
    // A LIKE wildcard typed as the actor is a character, not a pattern.
    expect((await listActivity(db, { actor: '%', limit: 10 })).items).toHaveLength(0)

    const first = await listActivity(db, { limit: 2 })
    const last = first.items.at(-1)!
    const rest = await listActivity(db, { limit: 10, before: { at: new Date(last.at), source: last.source, id: last.id } })
    expect([...first.items, ...rest.items].map(entry => entry.action)).toEqual(all.items.map(entry => entry.action))
  })
})

it('the CSV quotes every cell and defuses what a spreadsheet would run as a formula', () => {
  const csv = activityCsv([{ source: 'hub', id: 1, at: '2026-03-01T10:00:00.000Z', actor: '=HYPERLINK("x")', action: 'note_promoted', target: 'a "b", c', messageId: null, details: { k: 1 } }])
  expect(csv).toBe('at,source,actor,action,target,details\r\n"2026-03-01T10:00:00.000Z","hub","\'=HYPERLINK(""x"")","note_promoted","a ""b"", c","{""k"":1}"\r\n')
})
