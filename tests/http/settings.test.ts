// The settings API through the built hub (issue 34, Deliver 4): the connections as configured
// with no secret in the JSON, a viewer refused a test (403), an operator's tests answered in
// words (a closed IMAP port, a loopback SMTP server), audited, rate-limited, a bad name a 400;
// and the first-run checklist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Database } from '#db/connection'
import { hubAudit } from '#db/schema/index'
import { freePort } from '#layers/atlas/tests/fakes/ports'
import { startSmtpCapture, type SmtpCapture } from '#layers/atlas/tests/fakes/smtp'
import type { Checklist, ConnectionTestResult, ConnectionView } from '#layers/settings/core/schemas'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

const IMAP_PASSWORD = 'imap-Http-Secret-6620'
const MODEL_KEY = 'mistral-Http-Secret-7731'

let hub: Hub
let database: Database
let smtp: SmtpCapture
let closedPort: number
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  smtp = await startSmtpCapture()
  closedPort = await freePort()
  hub = await startHub({
    env: {
      ATLAS_IMAP_HOST: '127.0.0.1', ATLAS_IMAP_PORT: String(closedPort), ATLAS_IMAP_SECURE: '0', ATLAS_IMAP_USER: 'atlas@studio.test', ATLAS_IMAP_PASSWORD: IMAP_PASSWORD,
      ATLAS_SMTP_HOST: '127.0.0.1', ATLAS_SMTP_PORT: String(smtp.port), ATLAS_SMTP_SECURE: '0',
      MISTRAL_API_KEY: MODEL_KEY, MISTRAL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
    },
  })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub)
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
  await smtp?.close()
})

async function api<T>(
  method: string,
  path: string,
  who: keyof typeof cookies,
): Promise<{ status: number, text: string, json: T & { data?: Record<string, unknown> } }> {
  const response = await fetch(`${hub.url}/api/settings${path}`, { method, headers: { cookie: cookies[who] } })
  const text = await response.text()
  return { status: response.status, text, json: JSON.parse(text) as T & { data?: Record<string, unknown> } }
}

describe('settings through the hub', () => {
  it('shows every connection to a viewer, with secrets only as "set"', async () => {
    const { status, text, json } = await api<{ items: ConnectionView[] }>('GET', '/connections', 'viewer')
    expect(status).toBe(200)
    expect(text).not.toContain(IMAP_PASSWORD)
    expect(text).not.toContain(MODEL_KEY)
    const imap = json.items.find(item => item.name === 'imap')!
    expect(imap).toMatchObject({ configured: true, testable: true })
    expect(imap.fields.find(field => field.label === 'Password')!.value).toBe('set')
    expect(json.items.find(item => item.name === 'mistral')!.fields.find(field => field.label === 'Key')!.value).toBe('set')
  })

  it('refuses a viewer a test (403) and writes nothing', async () => {
    const { status, json } = await api('POST', '/connections/imap/test', 'viewer')
    expect([status, json.data?.code]).toEqual([403, 'forbidden'])
    expect(await database.db.select().from(hubAudit).where(eq(hubAudit.action, 'connection_tested'))).toEqual([])
  })

  it('answers an operator\'s tests in words, never with a secret, and audits them', async () => {
    const imap = await api<ConnectionTestResult>('POST', '/connections/imap/test', 'operator')
    expect(imap.status).toBe(200)
    expect(imap.json).toMatchObject({ name: 'imap', ok: false, detail: `connection refused on 127.0.0.1:${closedPort}` })
    expect(imap.text).not.toContain(IMAP_PASSWORD)

    const mail = await api<ConnectionTestResult>('POST', '/connections/smtp/test', 'operator')
    expect(mail.json).toMatchObject({ name: 'smtp', ok: true, detail: `EHLO accepted by 127.0.0.1:${smtp.port} (no ATLAS_SMTP_USER: no login tried)` })
    expect(smtp.messages).toEqual([])

    const model = await api<ConnectionTestResult>('POST', '/connections/mistral/test', 'operator')
    expect(model.json).toMatchObject({ name: 'mistral', ok: false })
    expect(model.json.detail).toMatch(/^mistral could not be reached at http:\/\/127\.0\.0\.1:\d+\/v1/)
    expect(model.text).not.toContain(MODEL_KEY)

    const audits = await database.db.select().from(hubAudit).where(eq(hubAudit.action, 'connection_tested'))
    expect(audits.map(row => [row.actor, row.target, (row.details as { ok: boolean }).ok])).toEqual([
      ['operator@studio.test', 'imap', false],
      ['operator@studio.test', 'smtp', true],
      ['operator@studio.test', 'mistral', false],
    ])
    expect(JSON.stringify(audits)).not.toContain(IMAP_PASSWORD)
  })

  it('refuses an unknown connection with a 400 naming the field', async () => {
    const { status, json } = await api('POST', '/connections/ftp/test', 'operator')
    expect([status, json.data?.code]).toEqual([400, 'bad_input'])
    expect((json.data?.issues as Array<{ path: string }>)[0]!.path).toBe('name')
  })

  it('says when a person tests too often (429)', async () => {
    let last = 0
    let body: { data?: Record<string, unknown> } = {}
    for (let i = 0; i < 12 && last !== 429; i++) {
      const answer = await api('POST', '/connections/smtp/test', 'founder')
      last = answer.status
      body = answer.json
    }
    const over = last === 429 ? { status: last, json: body } : await api('POST', '/connections/smtp/test', 'founder')
    expect([over.status, over.json.data?.code]).toEqual([429, 'too_many_tests'])
  })

  it('serves the first-run checklist to any role', async () => {
    const { status, json } = await api<Checklist>('GET', '/checklist', 'viewer')
    expect(status).toBe(200)
    expect(Object.fromEntries(json.items.map(item => [item.id, item.done]))).toMatchObject({ 'founder': true, 'client': false, 'mailbox': false, 'model': true, 'first-mail': false })
    expect(json.done).toBe(false)
    expect(json.items.find(item => item.id === 'client')!.to).toBe('/hub/clients')
  })
})
