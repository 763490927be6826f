// The outbound mail facade against a loopback SMTP server: mail reaches the internal team;
// any other recipient (To, Cc, Bcc, in a group, mixed with team addresses) is refused before
// anything is sent, and the refusal is audited. The lock guardian's alert goes through it.
import { hostname } from 'node:os'
import { eq } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { atlasAudit } from '#db/schema/atlas'
import { opsLocks } from '#db/schema/ops'
import { createMailer, MailRefusedError, readMailConfig, type Mailer } from '../../core/mail/mailer'
import { startSmtpCapture, type SmtpCapture } from '../fakes/smtp'

const TEAM = ['alex@studio.example', 'sam@studio.example']

describeOnBothDatabases('Atlas outbound mail', (database) => {
  let smtp: SmtpCapture
  let mailer: Mailer

  beforeAll(async () => {
    smtp = await startSmtpCapture()
  })
  afterAll(async () => {
    mailer?.close()
    await smtp.close()
  })
  beforeEach(() => {
    smtp.messages.length = 0
    mailer?.close()
    mailer = createMailer({ config: readMailConfig(smtp.env(TEAM)), db: database().db })
  })

  async function refusal(promise: Promise<unknown>): Promise<MailRefusedError> {
    try {
      await promise
    }
    catch (error) {
      expect(error).toBeInstanceOf(MailRefusedError)
      return error as MailRefusedError
    }
    throw new Error('expected a refusal')
  }

  it('sends to the internal team', async () => {
    const result = await mailer.sendToTeam({ subject: '[Atlas] Run #3 terminé', text: 'Résumé' }, { actor: 'atlas-spawn' })
    expect(result).toMatchObject({ sent: true, recipients: TEAM })
    expect(smtp.messages).toHaveLength(1)
    expect(smtp.messages[0]).toMatchObject({ from: 'atlas@studio.example', recipients: TEAM })
    const parsed = await simpleParser(smtp.messages[0]!.raw)
    expect(parsed.subject).toBe('[Atlas] Run #3 terminé')
    expect(parsed.text?.trim()).toBe('Résumé')
    const direct = await mailer.send({ to: 'Alex <ALEX@studio.example>', cc: 'sam@studio.example', subject: 'ok', text: 'ok' }, { actor: 'test' })
    expect(direct).toMatchObject({ sent: true, recipients: ['alex@studio.example', 'sam@studio.example'] })
  })

  it('refuses any recipient outside the team, sends nothing, and audits mail_refused_external', async () => {
    const { db } = database()
    const cases = [
      { to: 'client@customer.example', refused: ['client@customer.example'] },
      { to: TEAM[0]!, cc: 'Client <client@customer.example>', refused: ['client@customer.example'] },
      { to: TEAM[0]!, bcc: 'spy@elsewhere.example', refused: ['spy@elsewhere.example'] },
      { to: `Team: ${TEAM[0]}, outsider@customer.example;`, refused: ['outsider@customer.example'] },
      { to: 'alex@studio.example.evil.example', refused: ['alex@studio.example.evil.example'] },
      { to: [], refused: ['(no recipient)'] },
    ]
    for (const mail of cases) {
      const error = await refusal(mailer.send({ ...mail, subject: 'Votre site est prêt', text: 'Bonjour' }, { actor: 'atlas-spawn', messageId: undefined }))
      expect(error.refused).toEqual(mail.refused)
      expect(error.message).toMatch(/not on the internal team allowlist \(INTERNAL_TEAM_EMAILS\)/)
    }
    expect(smtp.messages).toHaveLength(0)
    const audits = await db.select().from(atlasAudit).where(eq(atlasAudit.action, 'mail_refused_external'))
    expect(audits.length).toBeGreaterThanOrEqual(cases.length)
    expect(audits.at(-cases.length)).toMatchObject({ actor: 'atlas-spawn', messageId: null, details: { refused: ['client@customer.example'], subject: 'Votre site est prêt' } })
  })

  it('without SMTP settings, says so instead of sending; with an empty team, sends nowhere', async () => {
    const { db } = database()
    const unconfigured = createMailer({ config: readMailConfig({ INTERNAL_TEAM_EMAILS: TEAM.join(',') }), db })
    expect(await unconfigured.sendToTeam({ subject: 's', text: 't' }, { actor: 'test' })).toEqual({ sent: false, reason: 'smtp_not_configured', recipients: TEAM })
    await refusal(unconfigured.send({ to: 'x@customer.example', subject: 's', text: 't' }, { actor: 'test' }))
    const noTeam = createMailer({ config: readMailConfig({ ...smtp.env([]), INTERNAL_TEAM_EMAILS: '' }), db })
    expect(await noTeam.sendToTeam({ subject: 's', text: 't' }, { actor: 'test' })).toEqual({ sent: false, reason: 'no_team', recipients: [] })
    await refusal(noTeam.send({ to: 'alex@studio.example', subject: 's', text: 't' }, { actor: 'test' }))
    expect(smtp.messages).toHaveLength(0)
  })

  it('the lock guardian mails its alert to the team through the facade', async () => {
    const { db, url } = database()
    const now = new Date(Date.now() - 60_000)
    await db.insert(opsLocks).values({ name: 'automate:probe-mail', holder: 'gone', host: hostname(), pid: 2 ** 22 + 12_345, acquiredAt: now, heartbeatAt: now, expiresAt: new Date(Date.now() + 3_600_000) })
    const result = await runTs('automates/run.ts', ['lock-guardian'], { env: { DATABASE_URL: url, ...smtp.env(TEAM) } })
    expect(result.code, result.output).toBe(0)
    expect(result.output).toMatch(/mail to internal team \(sent to alex@studio.example, sam@studio.example\): \[Synedre\] Lease automate:probe-mail/)
    expect(smtp.messages).toHaveLength(1)
    expect(smtp.messages[0]!.recipients).toEqual(TEAM)
    expect(smtp.messages[0]!.raw).toContain('automate:probe-mail')
  }, 60_000)
})
