import { describe, expect, it } from 'vitest'
import { readAtlasConfig } from '../../core/config'
import { readMailConfig } from '../../core/mail/mailer'

describe('Atlas configuration from the environment', () => {
  it('has working defaults with nothing set', () => {
    const config = readAtlasConfig({})
    expect(config.imap).toBeUndefined()
    expect(config.limits).toEqual({
      maxMessageBytes: 35 * 1024 * 1024,
      maxAttachmentBytes: 25 * 1024 * 1024,
      maxAttachments: 20,
      maxMimeParts: 200,
      maxMessagesPerCycle: 200,
    })
    expect(config.scanner).toMatchObject({ clamd: undefined, clamscanBin: 'clamscan' })
    expect(config.classifier).toEqual({ timeoutMs: 30_000, maxAttempts: 3, concurrency: 4, founderEmails: [], teamEmails: [] })
    expect(config.senderAuth).toEqual({ trustedAuthservIds: [], internalRelays: [], trustedArcSealers: [], timeoutMs: 15_000, unstampedMail: 'verify' })
    expect(config.pauseAt).toBeUndefined()
    expect(config.fault).toBeUndefined()
  })

  it('honours the broken-collector switch in a test run only (the soak proves it catches it)', () => {
    expect(readAtlasConfig({ ATLAS_COLLECT_FAULT: 'seen_before_insert', NODE_ENV: 'test' }).fault).toBe('seen_before_insert')
  })

  it('reads the mailbox, clamd, founders and the test pause', () => {
    const config = readAtlasConfig({
      ATLAS_IMAP_HOST: 'imap.studio.example', ATLAS_IMAP_USER: 'atlas@studio.example', ATLAS_IMAP_PASSWORD: 'pw', ATLAS_IMAP_SECURE: 'no',
      CLAMD_HOST: '10.0.0.5', ATLAS_FOUNDER_EMAILS: 'Alex@Studio.example, sam@studio.example', ATLAS_COLLECT_PAUSE_AT: 'after_seen@3',
    })
    expect(config.imap).toMatchObject({ host: 'imap.studio.example', port: 143, secure: false, mailbox: 'INBOX' })
    expect(config.scanner.clamd).toEqual({ host: '10.0.0.5', port: 3310 })
    expect(config.classifier.founderEmails).toEqual(['alex@studio.example', 'sam@studio.example'])
    expect(config.pauseAt).toEqual({ point: 'after_seen', occurrence: 3 })
    expect(readAtlasConfig({ ATLAS_IMAP_HOST: 'h', ATLAS_IMAP_USER: 'u', ATLAS_IMAP_PASSWORD: 'p' }).imap?.port).toBe(993)
  })

  it('reads the internal relays by address or network, and the trusted ARC sealers', () => {
    const config = readAtlasConfig({ ATLAS_INTERNAL_RELAYS: '10.0.0.25, 192.168.0.0/16 2001:DB8::/32', ATLAS_TRUSTED_ARC_SEALERS: 'Google.com forwarder.example' })
    expect(config.senderAuth.internalRelays).toEqual(['10.0.0.25', '192.168.0.0/16', '2001:db8::/32'])
    expect(config.senderAuth.trustedArcSealers).toEqual(['google.com', 'forwarder.example'])
    // Mail that did not come through the named server is unverified unless said otherwise.
    expect(readAtlasConfig({ ATLAS_TRUSTED_AUTHSERV_IDS: 'mx.studio.example' }).senderAuth.unstampedMail).toBe('unverified')
    expect(readAtlasConfig({ ATLAS_TRUSTED_AUTHSERV_IDS: 'mx.studio.example', ATLAS_UNSTAMPED_MAIL: 'Verify' }).senderAuth.unstampedMail).toBe('verify')
    expect(() => readAtlasConfig({ ATLAS_UNSTAMPED_MAIL: 'trust' })).toThrow(/ATLAS_UNSTAMPED_MAIL/)
  })

  it.each([
    [{ ATLAS_MAX_ATTACHMENT_BYTES: '10MB' }, 'ATLAS_MAX_ATTACHMENT_BYTES: expected a whole number ≥ 1, got "10MB"'],
    [{ ATLAS_IMAP_HOST: 'h' }, 'ATLAS_IMAP_USER: required when ATLAS_IMAP_HOST is set (the Atlas mailbox login)'],
    [{ ATLAS_IMAP_HOST: 'h', ATLAS_IMAP_USER: 'u' }, 'ATLAS_IMAP_PASSWORD: required when ATLAS_IMAP_HOST is set'],
    [{ ATLAS_IMAP_HOST: 'h', ATLAS_IMAP_USER: 'u', ATLAS_IMAP_PASSWORD: 'p', ATLAS_IMAP_PORT: '70000' }, 'ATLAS_IMAP_PORT: not a port number: 70000'],
    [{ ATLAS_IMAP_SECURE: 'maybe', ATLAS_IMAP_HOST: 'h', ATLAS_IMAP_USER: 'u', ATLAS_IMAP_PASSWORD: 'p' }, 'ATLAS_IMAP_SECURE: expected 1/0, true/false, yes/no or on/off, got "maybe"'],
    [{ ATLAS_FOUNDER_EMAILS: 'alex' }, 'ATLAS_FOUNDER_EMAILS: "alex" is not an email address'],
    [{ ATLAS_INTERNAL_RELAYS: 'relay.studio.example' }, 'ATLAS_INTERNAL_RELAYS: "relay.studio.example" is not an IP address or a network'],
    [{ ATLAS_INTERNAL_RELAYS: '10.0.0.0/33' }, 'ATLAS_INTERNAL_RELAYS: "10.0.0.0/33" is not an IP address or a network'],
    [{ ATLAS_COLLECT_PAUSE_AT: 'after seen' }, 'ATLAS_COLLECT_PAUSE_AT: expected point or point@n, got "after seen"'],
    [{ ATLAS_COLLECT_FAULT: 'seen_before_insert', NODE_ENV: 'production' }, 'ATLAS_COLLECT_FAULT: a test-only fault switch, refused unless NODE_ENV=test (got NODE_ENV="production")'],
    [{ ATLAS_COLLECT_FAULT: 'drop_everything', NODE_ENV: 'test' }, 'ATLAS_COLLECT_FAULT: expected one of seen_before_insert, got "drop_everything"'],
  ])('refuses %j with the variable named', (env, message) => {
    expect(() => readAtlasConfig(env)).toThrow(message)
  })

  it('reads the mail facade settings', () => {
    expect(readMailConfig({})).toEqual({ smtp: undefined, from: 'Atlas <atlas@localhost>', team: [] })
    expect(readMailConfig({ ATLAS_SMTP_HOST: 'smtp.example', ATLAS_SMTP_USER: 'atlas@studio.example', ATLAS_SMTP_PASSWORD: 's3cret', INTERNAL_TEAM_EMAILS: 'a@studio.example;b@studio.example' })).toEqual({
      smtp: { host: 'smtp.example', port: 587, secure: false, user: 'atlas@studio.example', password: 's3cret' },
      from: 'Atlas <atlas@studio.example>',
      team: ['a@studio.example', 'b@studio.example'],
    })
    expect(() => readMailConfig({ INTERNAL_TEAM_EMAILS: 'team' })).toThrow('INTERNAL_TEAM_EMAILS: "team" is not an email address')
    expect(() => readMailConfig({ ATLAS_SMTP_PORT: 'x' })).toThrow('ATLAS_SMTP_PORT: not a port number: "x"')
  })
})
