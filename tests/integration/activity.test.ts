// The Activity page's record on both databases: hub_audit and atlas_audit in one list,
// newest first, filtered by source, actor, action and time, in numbered pages without gaps; and its CSV.
import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { activityCsv, listActivity } from '#server/core/activity'

const PAGE = { page: 1, pageSize: 10 }

describeOnBothDatabases('activity: the audit trails', (database) => {
  it('merges both trails newest first, filters them and pages through them', async () => {
    const { db } = database()
    await db.execute(sql`insert into hub_audit (at, actor, action, target, details) values
      ('2026-03-01T10:00:00Z', 'alex@studio.test', 'automation_disabled', 'atlas-collect', '{}'),
      ('2026-03-01T12:00:00Z', 'sam@studio.test', 'note_promoted', 'inbox/a.md', '{"to":"permanent"}')`)
    await db.execute(sql`insert into atlas_audit (at, actor, action, details) values
      ('2026-03-01T11:00:00Z', 'atlas-collect', 'uidvalidity_changed', '{"mailbox":"INBOX"}'),
      ('2026-03-02T09:00:00Z', 'alex@studio.test', 'mail_refused', '{}')`)

    const all = await listActivity(db, {}, PAGE)
    expect(all.items.map(entry => [entry.source, entry.action])).toEqual([
      ['atlas', 'mail_refused'], ['hub', 'note_promoted'], ['atlas', 'uidvalidity_changed'], ['hub', 'automation_disabled'],
    ])
    expect(all.actions).toEqual(['automation_disabled', 'mail_refused', 'note_promoted', 'uidvalidity_changed'])

    expect((await listActivity(db, { actor: 'ALEX' }, PAGE)).items.map(entry => entry.action)).toEqual(['mail_refused', 'automation_disabled'])
    expect((await listActivity(db, { source: 'hub' }, PAGE)).items).toHaveLength(2)
    expect((await listActivity(db, { action: 'note_promoted' }, PAGE)).items[0]).toMatchObject({ actor: 'sam@studio.test', target: 'inbox/a.md', details: { to: 'permanent' } })
    const day = await listActivity(db, { since: new Date('2026-03-01T00:00:00Z'), until: new Date('2026-03-02T00:00:00Z') }, PAGE)
    expect(day.items).toHaveLength(3)
    // A LIKE wildcard typed as the actor is a character, not a pattern.
    expect((await listActivity(db, { actor: '%' }, PAGE)).items).toHaveLength(0)

    expect(all.total).toBe(4)
    const first = await listActivity(db, {}, { page: 1, pageSize: 3 })
    const rest = await listActivity(db, {}, { page: 2, pageSize: 3 })
    expect([first.total, rest.total, rest.page]).toEqual([4, 4, 2])
    expect([...first.items, ...rest.items].map(entry => entry.action)).toEqual(all.items.map(entry => entry.action))

    // Sorted by a column, newest first within it; either way.
    const byActor = await listActivity(db, {}, { ...PAGE, sort: 'actor', dir: 'asc' })
    expect(byActor.items.map(entry => entry.actor)).toEqual(['alex@studio.test', 'alex@studio.test', 'atlas-collect', 'sam@studio.test'])
    expect(byActor.items.slice(0, 2).map(entry => entry.action)).toEqual(['mail_refused', 'automation_disabled'])
    const oldest = await listActivity(db, {}, { ...PAGE, sort: 'at', dir: 'asc' })
    expect(oldest.items.map(entry => entry.action)).toEqual(all.items.map(entry => entry.action).reverse())
    // A target-less Atlas step sorts last by target, whichever way.
    const byTarget = await listActivity(db, { source: 'atlas' }, { ...PAGE, sort: 'target', dir: 'desc' })
    expect(byTarget.items.map(entry => entry.target)).toEqual([null, null])
  })
})

it('the CSV quotes every cell and defuses what a spreadsheet would run as a formula', () => {
  const csv = activityCsv([{ source: 'hub', id: 1, at: '2026-03-01T10:00:00.000Z', actor: '=HYPERLINK("x")', action: 'note_promoted', target: 'a "b", c', messageId: null, details: { k: 1 } }])
  expect(csv).toBe('at,source,actor,action,target,details\r\n"2026-03-01T10:00:00.000Z","hub","\'=HYPERLINK(""x"")","note_promoted","a ""b"", c","{""k"":1}"\r\n')
})
