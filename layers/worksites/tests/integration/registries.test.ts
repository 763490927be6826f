// The work registries as the Atlas classifier fills them: one record per message and
// registry whatever the number of calls, thread replies updating instead of duplicating,
// cancellation and re-activation, reply drafts (discarded ones ignored).
import { eq } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasMessages, atlasReplyDrafts } from '#db/schema/atlas'
import { workConseils, workRuns } from '#db/schema/work'
import { cancelRecord, getWorkRecord, latestReplyDraft, materialiseRecord, WORK_KINDS } from '../../core/registries'

let counter = 0

describeOnBothDatabases('Work registries', (database) => {
  async function message(overrides: Partial<typeof atlasMessages.$inferInsert> = {}) {
    counter += 1
    const [row] = await database().db.insert(atlasMessages).values({
      dedupeKey: `<w-${counter}-${Date.now()}@tests>`, messageId: `<w-${counter}-${Date.now()}@tests>`, rawSha256: 'x', rawSize: 1, mailbox: 'INBOX',
      subject: `Sujet ${counter}`, textBody: `  Corps ${counter}\n`, fromAddress: 'client@client.example', ...overrides,
    }).returning()
    return row!
  }
  const input = (m: Awaited<ReturnType<typeof message>>) => ({
    id: m.id,
    subject: m.subject,
    textBody: m.textBody,
    fromAddress: m.fromAddress,
    inReplyTo: m.inReplyTo,
    threadReferences: m.threadReferences,
  })

  it('creates one record per message and registry, however often it is asked', async () => {
    const { db } = database()
    for (const kind of WORK_KINDS) {
      const m = await message()
      const first = await materialiseRecord(db, { kind, message: input(m), tenantId: null, actor: 'test' })
      const second = await materialiseRecord(db, { kind, message: input(m), tenantId: null, actor: 'test' })
      expect(first.action).toBe('created')
      expect(second).toEqual({ kind, id: first.id, action: 'reactivated' })
      const view = await getWorkRecord(db, kind, first.id)
      expect(view).toMatchObject({ kind, title: m.subject, body: `Corps ${counter}`, sourceMessageId: m.id, messageCount: 1 })
    }
    const [run] = await db.select().from(workRuns).limit(1)
    expect(run!.createdBy).toBe('test')
  })

  it('cancels a record and brings it back when the same message asks again', async () => {
    const { db } = database()
    const m = await message()
    const record = await materialiseRecord(db, { kind: 'conseil', message: input(m), tenantId: null, actor: 'test' })
    await cancelRecord(db, 'conseil', record.id)
    expect((await db.select().from(workConseils).where(eq(workConseils.id, record.id)))[0]!.status).toBe('cancelled')
    expect(await materialiseRecord(db, { kind: 'conseil', message: input(m), tenantId: null, actor: 'test' })).toEqual({ kind: 'conseil', id: record.id, action: 'reactivated' })
    expect((await db.select().from(workConseils).where(eq(workConseils.id, record.id)))[0]!.status).toBe('open')
  })

  it('reads the latest reply draft, ignoring discarded ones', async () => {
    const { db } = database()
    const m = await message()
    expect(await latestReplyDraft(db, [m.id])).toBeNull()
    await db.insert(atlasReplyDrafts).values({ messageId: m.id, body: 'first', status: 'sent', createdBy: 'atlas', updatedAt: new Date(Date.now() - 1000) })
    const [second] = await db.insert(atlasReplyDrafts).values({ messageId: m.id, body: 'second', createdBy: 'atlas' }).returning()
    await db.insert(atlasReplyDrafts).values({ messageId: m.id, body: 'thrown away', status: 'discarded', createdBy: 'atlas', updatedAt: new Date(Date.now() + 1000) })
    expect(await latestReplyDraft(db, [m.id])).toEqual({ id: second!.id, body: 'second' })
    expect(await getWorkRecord(db, 'run', '00000000-0000-4000-8000-000000000000')).toBeNull()
  })
})
