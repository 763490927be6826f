// The collector against a real Dovecot IMAP server on loopback, on both databases: each
// message appended over IMAP is stored once and flagged \Seen, a second run adds nothing,
// bad mail never breaks a cycle, UIDVALIDITY is tracked, and messages still to process are
// fetched again for their attachments.
import { readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasAttachments, atlasAudit, atlasInbox, atlasMailboxState, atlasMessages } from '#db/schema/atlas'
import { collect, type CollectReport } from '../../core/collector'
import { readAtlasConfig } from '../../core/config'
import { withMailbox } from '../../core/ingest/imap'
import { requestReclassification } from '../../core/reclassify'
import { json } from '../fakes/model'
import { startCollectorWorld, type CollectorWorld } from '../fixtures/collector-world'
import { freePort } from '../fakes/ports'
import { bad, compose, uniqueId, withBigAttachment } from '../fixtures/mail'
import { createZone, type TestZone } from '../fixtures/sender-auth'

const MB = 1024 * 1024

describeOnBothDatabases('Atlas collector over IMAP (Dovecot)', (database, kind) => {
  let world: CollectorWorld

  beforeAll(async () => {
    world = await startCollectorWorld('imap-test')
  }, 60_000)
  afterAll(async () => await world?.close())
  beforeEach(() => {
    world.model.reset()
    world.model.byDefault(() => json('question', 0.9))
  })

  function config(mailbox: string, env: Record<string, string> = {}) {
    return readAtlasConfig({ ...world.dovecot.env(world.user, mailbox), CLAMAV_DATABASE: world.clamdb.dir, ATLAS_OCR_ENABLED: '0', ATLAS_TMP_DIR: world.scratch, ...env })
  }

  async function cycle(mailbox: string, env: Record<string, string> = {}, resolver?: TestZone['resolver']): Promise<CollectReport & { logs: string[] }> {
    const { db } = database()
    const logs: string[] = []
    const ai = world.model.facade(db)
    const report = await collect({ db, ai, config: config(mailbox, env), log: line => void logs.push(line), resolver })
    await ai.flush()
    return { ...report, logs }
  }

  async function rowsOf(mailbox: string) {
    const { db } = database()
    return await db
      .select({
        id: atlasMessages.id,
        messageId: atlasMessages.messageId,
        uid: atlasMessages.uid,
        subject: atlasMessages.subject,
        status: atlasInbox.status,
        reason: atlasInbox.statusReason,
        intent: atlasInbox.intent,
      })
      .from(atlasMessages)
      .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
      .where(eq(atlasMessages.mailbox, mailbox))
      .orderBy(atlasMessages.id)
  }

  it('stores each appended message once, flags it \\Seen, and a second run adds nothing', async () => {
    const { db } = database()
    const mailbox = `Plain-${kind}`
    const ids = [uniqueId('a'), uniqueId('b'), uniqueId('c')]
    await world.dovecot.append(world.user, mailbox, [
      await compose({ messageId: ids[0], subject: 'Bug formulaire' }),
      await compose({ messageId: ids[1], subject: 'Devis site vitrine' }),
      await compose({ messageId: ids[2], subject: 'Capture', attachments: [{ filename: 'log.txt', content: 'trace' }] }),
    ])
    const first = await cycle(mailbox)
    expect(first).toMatchObject({ imap: 'ok', unseen: 3, ingested: 3, duplicates: 0, quarantined: 0, seenNotConfirmed: 0, pipeline: { classified: 3, blocked: 0, failed: 0 } })
    const rows = await rowsOf(mailbox)
    expect(rows.map(r => r.messageId)).toEqual(ids)
    // Strangers' mail: classified, then waiting for a person's approval before any agent starts.
    expect(rows.every(r => r.status === 'awaiting_approval' && r.intent === 'question')).toBe(true)
    const flags = await world.dovecot.flags(world.user, mailbox)
    expect([...flags.values()].every(f => f.has('\\Seen'))).toBe(true)
    const [state] = await db.select().from(atlasMailboxState).where(eq(atlasMailboxState.mailbox, mailbox))
    expect(state).toMatchObject({ uidValidity: first.uidValidity, lastUid: 3 })
    const [attachment] = await db.select().from(atlasAttachments).where(eq(atlasAttachments.messageId, rows[2]!.id))
    expect(attachment).toMatchObject({ filename: 'log.txt', verdict: 'clean', sizeBytes: 5 })

    const second = await cycle(mailbox)
    expect(second).toMatchObject({ imap: 'ok', unseen: 0, ingested: 0, pipeline: { classified: 0 } })
    expect(await rowsOf(mailbox)).toHaveLength(3)
    expect(world.model.requests()).toHaveLength(3)
    expect(readdirSync(world.scratch)).toEqual([])
  }, 60_000)

  it('holds a founder\'s validly signed mail appended by IMAP as unverified once the receiving server is named', async () => {
    const { db } = database()
    const zone = createZone()
    zone.txt('_dmarc.studio.example', 'v=DMARC1; p=reject')
    const sign = zone.dkimKey('studio.example')
    const mailbox = `Appended-${kind}`
    const env = { ATLAS_FOUNDER_EMAILS: 'alex@studio.example', ATLAS_TRUSTED_AUTHSERV_IDS: 'mx.studio.example' }
    const messageId = uniqueId('appended')
    // What anyone holding the mailbox's password can do: APPEND a real, signed founder mail.
    await world.dovecot.append(world.user, mailbox, [await sign(await compose({ messageId, from: 'Alex <alex@studio.example>', subject: 'Relance le déploiement' }))])
    world.model.byDefault(() => json('chantier', 0.95))
    await cycle(mailbox, env, zone.resolver)
    const [row] = await db
      .select({
        senderAuth: atlasMessages.senderAuth,
        status: atlasInbox.status,
        admission: atlasInbox.admission,
        reason: atlasInbox.statusReason,
      })
      .from(atlasMessages)
      .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
      .where(eq(atlasMessages.messageId, messageId))
    expect(row!.senderAuth).toMatchObject({ verdict: 'none', flags: ['unstamped'] })
    expect(row!.senderAuth!.reasons.join('\n')).toMatch(/held as unverified: .*IMAP APPEND/)
    expect(row).toMatchObject({ status: 'awaiting_approval', admission: 'awaiting' })
  })

  it('--dry-run counts what waits and changes nothing', async () => {
    const { db } = database()
    const mailbox = `Dry-${kind}`
    await world.dovecot.append(world.user, mailbox, [await compose({ subject: 'Pas encore' }), await compose({ subject: 'Toujours pas' })])
    const report = await collect({ db, ai: world.model.facade(db), config: config(mailbox), log: () => {} }, { dryRun: true })
    expect(report).toMatchObject({ imap: 'ok', unseen: 2, ingested: 0 })
    expect(await rowsOf(mailbox)).toEqual([])
    expect([...(await world.dovecot.flags(world.user, mailbox)).values()].some(f => f.has('\\Seen'))).toBe(false)
    expect(world.model.requests()).toHaveLength(0)
  }, 60_000)

  it('when the server does not confirm \\Seen, the message is stored once and recognised next cycle', async () => {
    const { db } = database()
    const mailbox = `Unconfirmed-${kind}`
    const id = uniqueId('unconfirmed')
    await world.dovecot.append(world.user, mailbox, [await compose({ messageId: id, subject: 'Drapeau refusé' })])
    const logs: string[] = []
    const refusing: typeof withMailbox = (imap, work) => withMailbox(imap, session => work({ ...session, markSeen: async () => false }))
    const first = await collect({
      db,
      ai: world.model.facade(db),
      config: config(mailbox),
      log: line => void logs.push(line),
      mailbox: refusing,
    })
    expect(first).toMatchObject({ ingested: 1, seenNotConfirmed: 1, pipeline: { classified: 1 } })
    expect(logs.join('\n')).toMatch(/did not confirm \\Seen on UID 1/)
    expect([...(await world.dovecot.flags(world.user, mailbox)).values()][0]!.has('\\Seen')).toBe(false)
    const second = await cycle(mailbox)
    expect(second).toMatchObject({ unseen: 1, ingested: 0, duplicates: 1, pipeline: { classified: 0 } })
    expect([...(await world.dovecot.flags(world.user, mailbox)).values()][0]!.has('\\Seen')).toBe(true)
    expect(await rowsOf(mailbox)).toHaveLength(1)
  }, 60_000)

  it('takes bad mail in its stride: every message recorded once, the unusable ones quarantined with a reason, the cycle intact', async () => {
    const mailbox = `Bad-${kind}`
    const dupId = uniqueId('dup')
    const ids = {
      malformed: uniqueId('malformed'), unknown: uniqueId('unknown'), wrong: uniqueId('wrong'), parts: uniqueId('parts'),
      empty: uniqueId('empty'), html: uniqueId('html'), big: uniqueId('big'),
    }
    await world.dovecot.append(world.user, mailbox, [
      bad.malformedMime(ids.malformed),
      bad.unknownCharset(ids.unknown),
      bad.wrongCharset(ids.wrong),
      bad.manyParts(2000, ids.parts),
      bad.emptyBody(ids.empty),
      bad.noMessageId(),
      bad.htmlOnly(ids.html),
      await compose({ messageId: dupId, subject: 'Original', text: 'premier contenu' }),
      await compose({ messageId: dupId, subject: 'Imposteur', text: 'autre contenu' }),
      await withBigAttachment(20 * MB, ids.big),
    ])
    const report = await cycle(mailbox)
    expect(report).toMatchObject({ imap: 'ok', unseen: 10, ingested: 8, quarantined: 2, duplicates: 0 })
    expect(report.pipeline).toMatchObject({ classified: 8, blocked: 0, failed: 0 })
    const rows = await rowsOf(mailbox)
    expect(rows).toHaveLength(10)
    const byId = (id: string) => rows.find(r => r.messageId === id)!
    expect(byId(ids.parts)).toMatchObject({ status: 'quarantined', reason: 'more than 200 MIME parts (ATLAS_MAX_MIME_PARTS)' })
    expect(rows.find(r => r.subject === 'Imposteur')).toMatchObject({ status: 'quarantined' })
    expect(rows.find(r => r.subject === 'Imposteur')!.reason).toMatch(/^duplicate Message-ID /)
    for (const id of [ids.malformed, ids.unknown, ids.wrong, ids.empty, ids.html, ids.big]) expect(byId(id).status).toBe('awaiting_approval')
    expect(rows.find(r => r.messageId === null)).toMatchObject({ subject: 'Sans identifiant', status: 'awaiting_approval' })
    const { db } = database()
    const [big] = await db.select().from(atlasAttachments).where(eq(atlasAttachments.messageId, byId(ids.big).id))
    expect(big).toMatchObject({ sizeBytes: 20 * MB, verdict: 'clean' })
    // The 20 MB went to disk and away again, never into the database.
    const [size] = await db.execute<{ bytes: number }>(sql`select coalesce(sum(octet_length(m::text)), 0)::int as bytes from atlas_messages m where m.mailbox = ${mailbox}`)
    expect(size!.bytes).toBeLessThan(2 * MB)
    expect([...(await world.dovecot.flags(world.user, mailbox)).values()].every(f => f.has('\\Seen'))).toBe(true)
    expect((await cycle(mailbox)).ingested).toBe(0)
    expect(readdirSync(world.scratch)).toEqual([])
  }, 120_000)

  it('quarantines a message over the size limit without downloading it, keeping who sent it and why', async () => {
    const mailbox = `Huge-${kind}`
    const id = uniqueId('huge')
    await world.dovecot.append(world.user, mailbox, [await withBigAttachment(3 * MB, id)])
    const report = await cycle(mailbox, { ATLAS_MAX_MESSAGE_BYTES: String(MB) })
    expect(report).toMatchObject({ ingested: 0, quarantined: 1 })
    const [row] = await rowsOf(mailbox)
    expect(row).toMatchObject({ messageId: id, subject: 'Export complet', status: 'quarantined' })
    expect(row!.reason).toMatch(/^message of 4\.\d MB, over the 1\.0 MB limit \(ATLAS_MAX_MESSAGE_BYTES\): not downloaded$/)
    expect(world.model.requests()).toHaveLength(0)
  }, 60_000)

  it('tracks UIDVALIDITY: a recreated mailbox is noticed, and a message seen before is not stored twice', async () => {
    const { db } = database()
    const mailbox = `Validity-${kind}`
    const id = uniqueId('validity')
    const raw = await compose({ messageId: id, subject: 'Une fois' })
    await world.dovecot.append(world.user, mailbox, [raw])
    const first = await cycle(mailbox)
    const imap = await world.dovecot.client(world.user)
    await imap.mailboxDelete(mailbox)
    await imap.mailboxCreate(mailbox)
    await imap.logout()
    await world.dovecot.append(world.user, mailbox, [raw])
    const second = await cycle(mailbox)
    expect(second.uidValidity).not.toBe(first.uidValidity)
    expect(second).toMatchObject({ uidValidityChanged: true, unseen: 1, ingested: 0, duplicates: 1 })
    const changes = await db.select().from(atlasAudit).where(eq(atlasAudit.action, 'uidvalidity_changed'))
    expect(changes.some(c => c.details.mailbox === mailbox && c.details.previous === first.uidValidity)).toBe(true)
    expect(await rowsOf(mailbox)).toHaveLength(1)
  }, 60_000)

  it('fetches a message again for its attachments when its classification is retried or re-requested', async () => {
    const { db } = database()
    const mailbox = `Retry-${kind}`
    await world.dovecot.append(world.user, mailbox, [await compose({ subject: 'Avec pièce jointe', attachments: [{ filename: 'data.csv', content: 'a,b\n1,2\n' }] })])
    const failure = { status: 500, body: { message: 'boom' } }
    world.model.server.script(failure, failure, failure)
    const first = await cycle(mailbox)
    expect(first.pipeline.failed).toBe(1)
    const [row] = await rowsOf(mailbox)
    expect(row!.status).toBe('classification_failed')

    const retry = await cycle(mailbox)
    expect(retry).toMatchObject({ unseen: 0, refetched: 1, pipeline: { classified: 1 } })
    const [attachment] = await db.select().from(atlasAttachments).where(eq(atlasAttachments.messageId, row!.id))
    expect(attachment).toMatchObject({ verdict: 'clean', filename: 'data.csv' })
    const scannedAt = attachment!.scannedAt!

    expect(await requestReclassification(db, row!.id, 'operator@studio.example')).toMatchObject({ ok: true })
    world.model.answer(json('chantier', 0.88))
    const again = await cycle(mailbox)
    expect(again).toMatchObject({ refetched: 1, pipeline: { classified: 1 } })
    const [rescanned] = await db.select().from(atlasAttachments).where(eq(atlasAttachments.messageId, row!.id))
    expect(rescanned!.scannedAt!.getTime()).toBeGreaterThan(scannedAt.getTime())
    expect((await rowsOf(mailbox))[0]).toMatchObject({ status: 'awaiting_approval', intent: 'chantier' })
    expect(world.model.prompt()).toContain('Attachments: data.csv (text/csv)')
  }, 60_000)

  it('reports an IMAP failure (wrong password, a server that stalls past the deadline) and still processes what was stored', async () => {
    const { db } = database()
    const wrong = await collect({ db, ai: world.model.facade(db), config: readAtlasConfig({ ...world.dovecot.env({ ...world.user, password: 'wrong' }), ATLAS_TMP_DIR: world.scratch }), log: () => {} })
    expect(wrong.imap).toBe('failed')
    expect(wrong.imapError).toMatch(/auth|credentials|Command failed/i)

    const port = await freePort()
    const stalled: Server = createServer(socket => socket.write('* OK IMAP4rev1 stalling server ready\r\n'))
    await new Promise<void>(resolve => stalled.listen(port, '127.0.0.1', resolve))
    try {
      const env = { ATLAS_IMAP_HOST: '127.0.0.1', ATLAS_IMAP_PORT: String(port), ATLAS_IMAP_SECURE: '0', ATLAS_IMAP_USER: 'x', ATLAS_IMAP_PASSWORD: 'y', ATLAS_IMAP_DEADLINE_MS: '1500', ATLAS_TMP_DIR: world.scratch }
      const report = await collect({ db, ai: world.model.facade(db), config: readAtlasConfig(env), log: () => {} })
      expect(report.imap).toBe('failed')
      expect(report.imapError).toBe('the IMAP poll exceeded its deadline of 1500 ms (ATLAS_IMAP_DEADLINE_MS)')
    }
    finally {
      stalled.close()
    }
    const pending = await db.select().from(atlasInbox).where(inArray(atlasInbox.status, ['received']))
    expect(pending).toEqual([])
  }, 60_000)
})
