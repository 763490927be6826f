import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readAtlasConfig } from '../../core/config'
import { parseMessage, QuarantineError } from '../../core/ingest/parse'
import { bad, compose, withBigAttachment } from '../fixtures/mail'

const limits = readAtlasConfig({}).limits
let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atlas-parse-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function quarantineReason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  }
  catch (error) {
    expect(error).toBeInstanceOf(QuarantineError)
    return (error as QuarantineError).reason
  }
  throw new Error('expected a quarantine')
}

describe('parsing raw mail', () => {
  it('reads headers, bodies and streams attachments to files named by position', async () => {
    const raw = await compose({
      from: 'Alice Martin <Alice@Client.example>', subject: 'Bug sur la page contact', text: 'Bonjour, ça plante.', html: '<p>Bonjour</p>',
      messageId: '<abc-1@client.example>', inReplyTo: '<prev@studio.example>', references: '<root@studio.example> <prev@studio.example>',
      attachments: [{ filename: '../../etc/passwd', content: 'not really' }, { filename: 'shot.png', content: Buffer.from([0x89, 0x50, 0x4E, 0x47]), contentType: 'image/png' }],
    })
    const parsed = await parseMessage(raw, { limits, dir })
    expect(parsed).toMatchObject({
      messageId: '<abc-1@client.example>', fromAddress: 'alice@client.example', fromName: 'Alice Martin', toAddresses: ['atlas@studio.example'],
      subject: 'Bug sur la page contact', textBody: 'Bonjour, ça plante.', htmlBody: '<p>Bonjour</p>', inReplyTo: '<prev@studio.example>',
      threadReferences: ['<root@studio.example>', '<prev@studio.example>'], warnings: [],
    })
    expect(parsed.attachments.map(a => ({ position: a.position, filename: a.filename, size: a.sizeBytes }))).toEqual([
      { position: 0, filename: '../../etc/passwd', size: 10 },
      { position: 1, filename: 'shot.png', size: 4 },
    ])
    expect(readdirSync(dir).sort()).toEqual(['0.bin', '1.bin'])
    expect(readFileSync(join(dir, '0.bin'), 'utf8')).toBe('not really')
    expect(parsed.attachments[0]!.sha256).toBe(createHash('sha256').update('not really').digest('hex'))
  })

  it('survives malformed MIME: whatever can be read is kept', async () => {
    const parsed = await parseMessage(bad.malformedMime('<malformed@x>'), { limits, dir })
    expect(parsed.messageId).toBe('<malformed@x>')
    expect(parsed.fromAddress).toBe('broken@client.example')
    expect(parsed.textBody).toContain('Le serveur est en panne depuis ce matin')
  })

  it('decodes an unknown charset as best it can and says so', async () => {
    const parsed = await parseMessage(bad.unknownCharset(), { limits, dir })
    expect(parsed.textBody).toMatch(/Le caf.+ est froid/)
    expect(parsed.warnings.join(' ')).toMatch(/could not be decoded/)
    expect(parsed.textBody).not.toContain('\u0000')
  })

  it('keeps a body whose declared charset is wrong, with replacement characters', async () => {
    const parsed = await parseMessage(bad.wrongCharset(), { limits, dir })
    expect(parsed.textBody).toContain('La page d\uFFFDconnexion')
    expect(parsed.warnings.join(' ')).toMatch(/wrong or unknown charset/)
  })

  it('quarantines 2,000 MIME parts, over the limit, with the reason', async () => {
    const reason = await quarantineReason(parseMessage(bad.manyParts(2000), { limits, dir }))
    expect(reason).toBe(`more than ${limits.maxMimeParts} MIME parts (ATLAS_MAX_MIME_PARTS)`)
    // Raised limit: the same message parses.
    const parsed = await parseMessage(bad.manyParts(2000), { limits: { ...limits, maxMimeParts: 5000 }, dir })
    expect(parsed.textBody).toContain('part 1999')
  })

  it('handles an empty body, a missing Message-ID, and HTML only', async () => {
    const empty = await parseMessage(bad.emptyBody(), { limits, dir })
    expect(empty.textBody.trim()).toBe('')
    const anonymous = await parseMessage(bad.noMessageId(), { limits, dir })
    expect(anonymous.messageId).toBeNull()
    expect(anonymous.warnings).toContain('no Message-ID header: keyed on the SHA-256 of the raw source')
    const html = await parseMessage(bad.htmlOnly(), { limits, dir })
    expect(html.htmlBody).toContain('<script>')
    expect(html.textBody).toMatch(/^OFFRES\n\nCliquez ici/)
    expect(html.textBody).not.toContain('<script>')
  })

  it('streams a 20 MB attachment to disk, and quarantines it when over the attachment limit', async () => {
    const raw = await withBigAttachment(20 * 1024 * 1024)
    const parsed = await parseMessage(raw, { limits, dir })
    expect(parsed.attachments[0]!.sizeBytes).toBe(20 * 1024 * 1024)
    expect(statSync(join(dir, '0.bin')).size).toBe(20 * 1024 * 1024)
    const reason = await quarantineReason(parseMessage(raw, { limits: { ...limits, maxAttachmentBytes: 10 * 1024 * 1024 }, dir }))
    expect(reason).toBe('attachment 0 (export.bin) is 20.0 MB, over the 10.0 MB limit (ATLAS_MAX_ATTACHMENT_BYTES)')
  }, 60_000)

  it('quarantines too many attachments', async () => {
    const raw = await compose({ attachments: Array.from({ length: 4 }, (_, i) => ({ filename: `f${i}.txt`, content: `file ${i}` })) })
    const reason = await quarantineReason(parseMessage(raw, { limits: { ...limits, maxAttachments: 3 }, dir }))
    expect(reason).toBe('4 attachments, over the limit of 3 (ATLAS_MAX_ATTACHMENTS)')
  })

  it('removes NUL bytes and other control characters from what it keeps', async () => {
    const raw = Buffer.from('From: a@b.example\r\nSubject: nul\u0000here\r\nContent-Type: text/plain\r\n\r\nbody\u0000with\u0007nul\r\n', 'latin1')
    const parsed = await parseMessage(raw, { limits, dir })
    expect(parsed.subject).toBe('nulhere')
    expect(parsed.textBody).toBe('bodywithnul\n')
  })
})
