// Each connection test against the real loopback service the suite already runs (Dovecot,
// an smtp-server that checks a login, clamd, the real Claude Code CLI in srt's sandbox) and
// against a closed port or a wrong password: a failure in words, never the password.
import { createRequire } from 'node:module'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AiFacade } from '#layers/ai/core/facade'
import { startClamd, writeEicarDatabase, type Clamd } from '#layers/atlas/tests/fakes/clamav'
import { startDovecot, type Dovecot } from '#layers/atlas/tests/fakes/dovecot'
import { freePort } from '#layers/atlas/tests/fakes/ports'
import { testConnection } from '../../core/connection-tests'

const IMAP_USER = { user: 'atlas@studio.test', password: 'imap-Secret-4417-zq' }
const SMTP_USER = 'mailer@studio.test'
const SMTP_PASSWORD = 'smtp-Secret-9021-kw'
const CLAUDE = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code-linux-x64/package.json')), 'claude')
// The model tests live in model-test.test.ts (they need a ledger); these never reach the facade.
const facade = {} as Pick<AiFacade, 'chatWithTools' | 'embed'>
const actor = 'operator@studio.test'

let dovecot: Dovecot
let clamd: Clamd
let removeDb: () => void
let smtp: SMTPServer
let smtpPort: number
let silent: Server
let silentPort: number
const silentSockets = new Set<Socket>()
let closedPort: number

beforeAll(async () => {
  dovecot = await startDovecot([IMAP_USER])
  await dovecot.append(IMAP_USER, 'Atlas', ['Subject: hello\r\n\r\nhi\r\n'])
  const database = writeEicarDatabase()
  removeDb = database.remove
  clamd = await startClamd(database.dir)
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    closeTimeout: 500,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username })
      callback(new Error('Invalid username or password'))
    },
  })
  await new Promise<void>(resolve => smtp.listen(0, '127.0.0.1', () => resolve()))
  smtpPort = (smtp.server.address() as AddressInfo).port
  // Accepts connections and never says a word: the deadline has to end the test.
  silent = createServer(socket => silentSockets.add(socket))
  await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', () => resolve()))
  silentPort = (silent.address() as AddressInfo).port
  closedPort = await freePort()
}, 90_000)

afterAll(async () => {
  await dovecot?.stop()
  await clamd?.stop()
  removeDb?.()
  await new Promise<void>(resolve => smtp ? smtp.close(() => resolve()) : resolve())
  for (const socket of silentSockets) socket.destroy()
  await new Promise<void>(resolve => silent ? silent.close(() => resolve()) : resolve())
})

const imapEnv = (overrides: Record<string, string> = {}) => ({ ...dovecot.env(IMAP_USER, 'Atlas'), ...overrides })
const smtpEnv = (overrides: Record<string, string> = {}) => ({
  ATLAS_SMTP_HOST: '127.0.0.1', ATLAS_SMTP_PORT: String(smtpPort), ATLAS_SMTP_SECURE: '0', ATLAS_SMTP_USER: SMTP_USER, ATLAS_SMTP_PASSWORD: SMTP_PASSWORD, ...overrides,
})

describe('the IMAP test', () => {
  it('logs in to Dovecot, lists the folders and finds the Atlas folder', async () => {
    const result = await testConnection('imap', { env: imapEnv(), facade, actor })
    expect(result.ok, result.detail).toBe(true)
    expect(result.detail).toMatch(/logged in as atlas@studio\.test .*the Atlas folder "Atlas" exists/)
    expect(result.elapsedMs).toBeGreaterThanOrEqual(0)
  })

  it('says the login was refused for a wrong password, without the password', async () => {
    const wrong = 'wrong-Imap-Password-77'
    const result = await testConnection('imap', { env: imapEnv({ ATLAS_IMAP_PASSWORD: wrong }), facade, actor })
    expect(result.ok).toBe(false)
    expect(result.detail).toMatch(/^login refused for atlas@studio\.test on 127\.0\.0\.1:\d+/)
    expect(result.detail).not.toContain(wrong)
    expect(result.detail).not.toContain(IMAP_USER.password)
  })

  it('says the folder is missing', async () => {
    const result = await testConnection('imap', { env: imapEnv({ ATLAS_IMAP_MAILBOX: 'Nowhere' }), facade, actor })
    expect(result).toMatchObject({ ok: false })
    expect(result.detail).toMatch(/the folder "Nowhere" \(ATLAS_IMAP_MAILBOX\) does not exist/)
  })

  it('says the connection was refused on a closed port', async () => {
    const result = await testConnection('imap', { env: imapEnv({ ATLAS_IMAP_PORT: String(closedPort) }), facade, actor })
    expect(result).toMatchObject({ ok: false, detail: `connection refused on 127.0.0.1:${closedPort}` })
  })

  it('gives up at the deadline on a server that never greets', async () => {
    const result = await testConnection('imap', { env: imapEnv({ ATLAS_IMAP_PORT: String(silentPort) }), facade, actor, deadlineMs: 700 })
    expect(result.ok).toBe(false)
    expect(result.detail).toMatch(/timed out/)
    expect(result.detail).not.toContain(IMAP_USER.password)
    expect(result.elapsedMs).toBeLessThan(5000)
  })

  it('is not configured without ATLAS_IMAP_HOST', async () => {
    expect(await testConnection('imap', { env: {}, facade, actor })).toMatchObject({ ok: false, detail: 'not configured: ATLAS_IMAP_HOST is not set' })
  })
})

describe('the SMTP test', () => {
  it('says EHLO and logs in', async () => {
    const result = await testConnection('smtp', { env: smtpEnv(), facade, actor })
    expect(result.ok, result.detail).toBe(true)
    expect(result.detail).toBe(`EHLO and login as ${SMTP_USER} accepted by 127.0.0.1:${smtpPort}`)
  })

  it('says the login was refused for a wrong password, without the password', async () => {
    const wrong = 'wrong-Smtp-Password-55'
    const result = await testConnection('smtp', { env: smtpEnv({ ATLAS_SMTP_PASSWORD: wrong }), facade, actor })
    expect(result.ok).toBe(false)
    expect(result.detail).toMatch(new RegExp(`^login refused for ${SMTP_USER.replace('.', '\\.')} on 127\\.0\\.0\\.1:${smtpPort}`))
    expect(result.detail).not.toContain(wrong)
  })

  it('says the connection was refused on a closed port', async () => {
    const result = await testConnection('smtp', { env: smtpEnv({ ATLAS_SMTP_PORT: String(closedPort) }), facade, actor })
    expect(result).toMatchObject({ ok: false, detail: `connection refused on 127.0.0.1:${closedPort}` })
    expect(result.detail).not.toContain(SMTP_PASSWORD)
  })
})

describe('the clamd test', () => {
  it('gets PONG from clamd', async () => {
    const result = await testConnection('clamav', { env: { CLAMD_HOST: clamd.host, CLAMD_PORT: String(clamd.port) }, facade, actor })
    expect(result).toMatchObject({ ok: true, detail: `clamd at ${clamd.host}:${clamd.port} answered PONG` })
  })

  it('says the connection was refused on a closed port', async () => {
    const result = await testConnection('clamav', { env: { CLAMD_HOST: '127.0.0.1', CLAMD_PORT: String(closedPort) }, facade, actor })
    expect(result).toMatchObject({ ok: false, detail: `connection refused on 127.0.0.1:${closedPort}` })
  })

  it('says when something else than clamd answers', async () => {
    const result = await testConnection('clamav', { env: { CLAMD_HOST: '127.0.0.1', CLAMD_PORT: String(smtpPort) }, facade, actor })
    expect(result.ok).toBe(false)
    expect(result.detail).toMatch(new RegExp(`^127\\.0\\.0\\.1:${smtpPort} answered "220 .*" to PING, not PONG: is it clamd\\?$`))
  })

  it('gives up at the deadline on a silent port', async () => {
    const result = await testConnection('clamav', { env: { CLAMD_HOST: '127.0.0.1', CLAMD_PORT: String(silentPort) }, facade, actor, deadlineMs: 500 })
    expect(result).toMatchObject({ ok: false, detail: `timed out after 0.5 s waiting for 127.0.0.1:${silentPort}` })
  })
})

describe('the agent CLI test', () => {
  it('runs the real claude --version inside the srt sandbox', async () => {
    const result = await testConnection('agent-cli', { env: { PATH: process.env.PATH, SPAWN_AGENT_BIN: CLAUDE, SPAWN_SANDBOX: 'srt', ANTHROPIC_API_KEY: 'sk-ant-api03-never-shown-in-a-test-result' }, facade, actor })
    expect(result.ok, result.detail).toBe(true)
    expect(result.detail).toMatch(/\d+\.\d+\.\d+.*in the srt sandbox/)
    expect(result.detail).not.toContain('never-shown')
  }, 60_000)

  it('says when the binary is not there', async () => {
    const result = await testConnection('agent-cli', { env: { PATH: process.env.PATH, SPAWN_AGENT_BIN: '/nonexistent/claude', SPAWN_SANDBOX: 'srt' }, facade, actor })
    expect(result).toMatchObject({ ok: false, detail: '"/nonexistent/claude" is not on the agent\'s PATH (SPAWN_AGENT_BIN)' })
  })
})
