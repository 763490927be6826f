// What the cockpit reads, on both databases: the Atlas inbox by pages and in any column's
// order (no row twice or skipped across pages), the command palette's search (hostile
// wildcards are literal), and the notifications (open alerts, messages waiting for a person).
import { beforeAll, expect, it } from 'vitest'
import { TransactionRollbackError, eq } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { atlasInbox } from '#db/schema/atlas'
import { opsAlerts } from '#db/schema/ops'
import { listInbox } from '#layers/atlas/core/queries'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { seedAgents } from '#layers/agents/core/seed'
import { searchHub } from '#server/core/search'
import { listNotifications } from '#server/core/notifications'

describeOnBothDatabases('cockpit queries', (database) => {
  const ids: number[] = []
  let escalated = 0

  beforeAll(async () => {
    const db = database().db
    await seedAgents(db)
    // Same subject twice: the id breaks the tie, so pages stay stable.
    for (const subject of ['beta', 'alpha', 'delta', 'alpha', 'gamma', 'epsilon 100% done']) ids.push(await classifiedMessage(db, { subject }))
    escalated = await classifiedMessage(db, { subject: 'Portal down', status: 'escalated' })
    await db.update(atlasInbox).set({ statusReason: 'no reproduction' }).where(eq(atlasInbox.messageId, escalated))
    await db.insert(opsAlerts).values([
      { kind: 'zombie_lease', subject: 'automate:x', message: 'open one' },
      { kind: 'zombie_lease', subject: 'automate:y', message: 'resolved one', resolvedAt: new Date() },
    ])
  })

  it('pages the inbox with a total, newest first by default', async () => {
    const first = await listInbox(database().db, { pageSize: 3 })
    const second = await listInbox(database().db, { pageSize: 3, page: 2 })
    const third = await listInbox(database().db, { pageSize: 3, page: 3 })
    expect(first.total).toBe(7)
    expect([...first.items, ...second.items, ...third.items].map(i => i.messageId)).toEqual([escalated, ...ids].sort((a, b) => b - a))
    expect(third.items).toHaveLength(1)
    // The counts come with a page, or on their own when the page is past the end or filtered empty.
    const beyond = await listInbox(database().db, { pageSize: 3, page: 9 })
    const none = await listInbox(database().db, { q: 'no-such-word' })
    for (const list of [second, beyond, none]) expect(list.counts).toEqual(first.counts)
    expect(Object.values(first.counts).reduce((sum, n) => sum + n, 0)).toBe(7)
    expect([beyond.total, beyond.items.length, none.total, none.items.length]).toEqual([7, 0, 0, 0])
    expect(first.items[0]).not.toHaveProperty('counts')
  })

  it('answers an empty inbox with zero counts without counting again', async () => {
    // Emptied inside a transaction that is then rolled back: the other tests keep their rows.
    let lists: Awaited<ReturnType<typeof listInbox>>[] = []
    await database().db.transaction(async (tx) => {
      await tx.delete(atlasInbox)
      lists = [await listInbox(tx as never, {}), await listInbox(tx as never, { page: 2 }), await listInbox(tx as never, { q: 'x' })]
      tx.rollback()
    }).catch((error: Error) => {
      if (!(error instanceof TransactionRollbackError)) throw error
    })
    expect(lists.map(list => [list.items.length, list.total, list.counts])).toEqual([[0, 0, {}], [0, 0, {}], [0, 0, {}]])
    expect((await listInbox(database().db, {})).total).toBe(7)
  })

  it('sorts by subject across pages, ties broken by id, both directions', async () => {
    const asc = [...(await listInbox(database().db, { sort: 'subject', dir: 'asc', pageSize: 4 })).items, ...(await listInbox(database().db, { sort: 'subject', dir: 'asc', pageSize: 4, page: 2 })).items]
    expect(asc.map(i => i.subject)).toEqual(['alpha', 'alpha', 'beta', 'delta', 'epsilon 100% done', 'gamma', 'Portal down'])
    expect(asc[0]!.messageId).toBeLessThan(asc[1]!.messageId)
    const desc = (await listInbox(database().db, { sort: 'subject', dir: 'desc', pageSize: 2 })).items
    expect(desc.map(i => i.subject)).toEqual(['Portal down', 'gamma'])
    const filtered = await listInbox(database().db, { status: 'escalated' })
    expect([filtered.total, filtered.items.length, filtered.counts.escalated]).toEqual([1, 1, 1])
  })

  it('searches messages, agents and notes, wildcards taken literally', async () => {
    const found = await searchHub(database().db, 'alpha', 6)
    expect(found.messages.map(m => m.label)).toEqual(['alpha', 'alpha'])
    expect(found.messages[0]!.to).toMatch(/^\/hub\/atlas\/\d+$/)
    expect((await searchHub(database().db, '100%', 6)).messages.map(m => m.label)).toEqual(['epsilon 100% done'])
    expect((await searchHub(database().db, '%', 6)).messages.map(m => m.label)).toEqual(['epsilon 100% done'])
    const agents = await searchHub(database().db, 'orchestrator', 6)
    expect(agents.agents[0]).toMatchObject({ to: '/hub/agents/orchestrator' })
    expect(agents.notes).toEqual([])
  })

  it('notifies the open alerts and the messages waiting for a person, not the resolved ones', async () => {
    const list = await listNotifications(database().db)
    expect(list.map(n => n.body)).toContain('open one')
    expect(list.map(n => n.body)).not.toContain('resolved one')
    const message = list.find(n => n.id === `message-${escalated}`)
    expect(message).toMatchObject({ kind: 'message', title: 'Portal down', to: `/hub/atlas/${escalated}` })
    expect(message!.body).toContain('no reproduction')
    expect(list.filter(n => n.kind === 'message')).toHaveLength(1)
  })
})
