// A test message handed in from the hub (the form or a pasted .eml) goes through the very
// pipeline of mailbox mail, on both databases: stored under the `hub` mailbox, scanned by the
// antivirus, classified by the offline provider, the person recorded as the actor.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { createAiFacade } from '#layers/ai/core/facade'
import { composeMessage, HUB_MAILBOX, submitMessage } from '../../core/submit'
import { auditOf, testConfig } from '../fakes/pipeline'
import { eicar, TEST_SIGNATURE, writeEicarDatabase } from '../fakes/clamav'
import { compose, uniqueId } from '../fixtures/mail'
import { atlasMessages } from '#db/schema/atlas'
import { eq } from 'drizzle-orm'
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collect } from '../../core/collector'
import { DROP_MAILBOX } from '../../core/ingest/drop-folder'

const PERSON = 'operator@studio.test'

describeOnBothDatabases('Atlas test messages handed in from the hub', (database) => {
  let clamdb: { dir: string, remove: () => void }
  beforeAll(() => {
    clamdb = writeEicarDatabase()
  })
  afterAll(() => clamdb.remove())

  const submit = async (source: Buffer) => {
    const { db } = database()
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db })
    const logs: string[] = []
    const result = await submitMessage(
      { db, ai, config: testConfig({ CLAMAV_DATABASE: clamdb.dir }), actor: PERSON, log: line => void logs.push(line) },
      source,
    )
    await ai.flush()
    return { result, logs }
  }

  it('a message written in the form is stored, classified by the offline provider, the person the actor', async () => {
    const { db } = database()
    const source = await composeMessage({ from: 'Camille <camille@client.example>', subject: 'The contact form no longer sends', text: 'Since this morning the contact form shows an error.' })
    const { result } = await submit(source)
    expect(result.outcome).toBe('ingested')
    // Its sender is not authenticated: a request that would start an agent waits for a person.
    expect(['classified', 'awaiting_approval']).toContain(result.status)
    const [message] = await db.select().from(atlasMessages).where(eq(atlasMessages.id, result.messageId))
    expect(message).toMatchObject({ mailbox: HUB_MAILBOX, uid: null, fromAddress: 'camille@client.example', subject: 'The contact form no longer sends' })
    const audit = await auditOf(db, result.messageId)
    expect(audit.map(entry => entry.action)).toEqual(expect.arrayContaining(['received', 'classified']))
    expect(audit.every(entry => entry.actor === PERSON)).toBe(true)

    // Handed in again: recognised, nothing stored twice.
    expect((await submit(source)).result).toMatchObject({ outcome: 'duplicate', messageId: result.messageId })
  })

  it('a pasted .eml with an infected attachment is blocked by the antivirus before any model sees it', async () => {
    const { db } = database()
    const raw = await compose({ messageId: uniqueId('hub'), subject: 'Invoice attached', attachments: [{ filename: 'invoice.pdf', content: eicar(), contentType: 'application/pdf' }] })
    const { result } = await submit(raw)
    expect(result.status).toBe('blocked_unsafe')
    const blocked = (await auditOf(db, result.messageId)).find(entry => entry.action === 'blocked_unsafe')
    expect(JSON.stringify(blocked?.details)).toContain(TEST_SIGNATURE)
    expect(blocked?.actor).toBe(PERSON)
  })

  it('an .eml dropped into the watched folder is collected by the next cycle without a mailbox, then removed; one still being written waits', async () => {
    const { db } = database()
    const dropDir = mkdtempSync(join(tmpdir(), 'atlas-drop-test-'))
    try {
      const settled = join(dropDir, 'request.eml')
      writeFileSync(settled, await compose({ messageId: uniqueId('drop'), subject: 'Dropped request', text: 'Please add a FAQ page.' }))
      utimesSync(settled, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000))
      const fresh = join(dropDir, 'still-writing.eml')
      writeFileSync(fresh, 'From: a@b.example\r\n')
      writeFileSync(join(dropDir, 'notes.txt'), 'not a message')

      const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db })
      const report = await collect({ db, ai, config: testConfig({ CLAMAV_DATABASE: clamdb.dir, ATLAS_DROP_DIR: dropDir }), log: () => {} })
      await ai.flush()
      expect(report).toMatchObject({ imap: 'not_configured', dropped: 1, pipeline: { classified: 1 } })
      const [message] = await db.select().from(atlasMessages).where(eq(atlasMessages.subject, 'Dropped request'))
      expect(message).toMatchObject({ mailbox: DROP_MAILBOX })
      expect(existsSync(settled)).toBe(false)
      expect(existsSync(fresh)).toBe(true)
      expect(existsSync(join(dropDir, 'notes.txt'))).toBe(true)
    }
    finally {
      rmSync(dropDir, { recursive: true, force: true })
    }
  })
})
