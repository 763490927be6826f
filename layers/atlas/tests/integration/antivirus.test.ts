// Antivirus before anything opens an attachment, with the real ClamAV: clamscan and a clamd
// started on loopback, both with a locally generated EICAR signature database. An EICAR
// attachment, plain or zipped, blocks the message and no model is called.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasAttachments } from '#db/schema/atlas'
import { getMessageDetail } from '../../core/queries'
import { createScanner, type Scanner } from '../../core/scan/clamav'
import { clamscanBinary, eicar, startClamd, TEST_SIGNATURE, writeEicarDatabase, zip, type Clamd } from '../fakes/clamav'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { actionsOf, auditOf, deliver, inboxOf, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'

const SIGNATURE = `${TEST_SIGNATURE}.UNOFFICIAL`

describeOnBothDatabases('Atlas antivirus', (database) => {
  let model: ScriptedModel
  let clamdb: { dir: string, remove: () => void }
  let clamd: Clamd
  let emptyDb: string
  const scanners: Record<string, () => Scanner> = {}

  beforeAll(async () => {
    clamscanBinary()
    model = await startScriptedModel()
    clamdb = writeEicarDatabase()
    clamd = await startClamd(clamdb.dir)
    emptyDb = mkdtempSync(join(tmpdir(), 'atlas-no-signatures-'))
    scanners.clamscan = () => createScanner(testConfig({ CLAMAV_DATABASE: clamdb.dir }).scanner, 25 * 1024 * 1024)
    scanners.clamd = () => createScanner(testConfig({ CLAMD_HOST: clamd.host, CLAMD_PORT: String(clamd.port) }).scanner, 25 * 1024 * 1024)
  }, 60_000)
  afterAll(async () => {
    await model.close()
    await clamd?.stop()
    clamdb?.remove()
    rmSync(emptyDb, { recursive: true, force: true })
  })
  beforeEach(() => model.reset())

  for (const scannerName of ['clamscan', 'clamd'] as const) {
    it(`${scannerName}: an EICAR attachment, plain or zipped, blocks the message and no model is called`, async () => {
      const { db } = database()
      model.byDefault(() => json('run', 1))
      const plain = await compose({ subject: `Facture (${scannerName})`, attachments: [{ filename: 'facture.pdf', content: eicar(), contentType: 'application/pdf' }, { filename: 'notes.txt', content: 'rien à signaler' }] })
      const zipped = await compose({ subject: `Archive (${scannerName})`, attachments: [{ filename: 'docs.zip', content: zip([{ name: 'readme.txt', data: Buffer.from('hello') }, { name: 'eicar.com', data: eicar() }]), contentType: 'application/zip' }] })
      const clean = await compose({ subject: `Propre (${scannerName})`, attachments: [{ filename: 'propre.zip', content: zip([{ name: 'a.txt', data: Buffer.from('clean') }]) }] })
      const delivery = await deliver(db, model.facade(db), [plain, zipped, clean], {
        config: testConfig(),
        scanner: scanners[scannerName]!(),
      })
      expect(delivery.report).toMatchObject({ blocked: 2, classified: 1 })
      expect(model.requests()).toHaveLength(1)
      expect(model.prompt()).toContain(`Propre (${scannerName})`)

      const [plainId, zippedId, cleanId] = delivery.stored.map(s => s.messageRowId)
      const plainInbox = await inboxOf(db, plainId!)
      expect(plainInbox).toMatchObject({ status: 'blocked_unsafe', needsHuman: true, intent: null, materialisedKind: null })
      expect(plainInbox.statusReason).toBe(`facture.pdf: infected (${SIGNATURE})`)
      expect(await actionsOf(db, plainId!)).toEqual(['received', 'blocked_unsafe'])
      const verdicts = await db
        .select()
        .from(atlasAttachments)
        .where(eq(atlasAttachments.messageId, plainId!))
        .orderBy(atlasAttachments.position)
      expect(verdicts.map(v => [v.filename, v.verdict, v.signature, v.scanner])).toEqual([
        ['facture.pdf', 'infected', SIGNATURE, scannerName],
        ['notes.txt', 'clean', null, scannerName],
      ])
      expect((await inboxOf(db, zippedId!)).statusReason).toBe(`docs.zip: infected (${SIGNATURE})`)
      expect((await auditOf(db, zippedId!)).at(-1)!.details).toMatchObject({ attachments: [{ filename: 'docs.zip', verdict: 'infected', signature: SIGNATURE }] })
      // The clean one is a stranger's: classified, waiting for a person, no work record yet.
      expect(await inboxOf(db, cleanId!)).toMatchObject({ status: 'awaiting_approval', intent: 'run', materialisedKind: null })

      // What the hub shows.
      const detail = await getMessageDetail(db, plainId!)
      expect(detail!.inbox).toMatchObject({ status: 'blocked_unsafe', reclassifiable: true })
      expect(detail!.attachments[0]).toMatchObject({ verdict: 'infected', signature: SIGNATURE })
    }, 60_000)
  }

  it('a scan that cannot run is an error verdict with the reason, and blocks too', async () => {
    const { db } = database()
    const scanner = createScanner(testConfig({ CLAMAV_DATABASE: emptyDb }).scanner, 25 * 1024 * 1024)
    const missing = createScanner(testConfig({ CLAMSCAN_BIN: '/nonexistent/clamscan' }).scanner, 25 * 1024 * 1024)
    const raw = await compose({ subject: 'Pièce jointe', attachments: [{ filename: 'doc.txt', content: 'text' }] })
    const first = await deliver(db, model.facade(db), [raw], { config: testConfig(), scanner })
    const inbox = await inboxOf(db, first.stored[0]!.messageRowId)
    expect(inbox.status).toBe('blocked_unsafe')
    expect(inbox.statusReason).toMatch(/^doc\.txt: scan error \(clamscan: .*(No supported database|Can't open)/)
    const second = await deliver(db, model.facade(db), [await compose({ subject: 'Autre', attachments: [{ filename: 'x.txt', content: 'x' }] })], { config: testConfig(), scanner: missing })
    expect((await inboxOf(db, second.stored[0]!.messageRowId)).statusReason).toBe('x.txt: scan error (/nonexistent/clamscan not found (install ClamAV: apt-get install clamav, or set CLAMSCAN_BIN / CLAMD_HOST))')
    const unreachable = createScanner(testConfig({ CLAMD_HOST: '127.0.0.1', CLAMD_PORT: '1' }).scanner, 1024)
    const third = await deliver(db, model.facade(db), [await compose({ subject: 'Encore', attachments: [{ filename: 'y.txt', content: 'y' }] })], { config: testConfig(), scanner: unreachable })
    expect((await inboxOf(db, third.stored[0]!.messageRowId)).statusReason).toBe('y.txt: scan error (clamd at 127.0.0.1:1 unreachable: ECONNREFUSED)')
    expect(model.requests()).toHaveLength(0)
  }, 60_000)
})
