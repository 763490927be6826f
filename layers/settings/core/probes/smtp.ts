// The outbound mail test: nodemailer's verify() connects, says EHLO, upgrades to TLS when the
// server offers it, and logs in when a user is set; no mail is sent.
import nodemailer from 'nodemailer'
import type { MailConfig } from '#layers/atlas/core/mail/mailer'
import { networkFailure, withDeadline } from './words'

type SmtpConfig = NonNullable<MailConfig['smtp']>

export async function probeSmtp(config: SmtpConfig, deadlineMs: number): Promise<string> {
  const transporter = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: config.user ? { user: config.user, pass: config.password ?? '' } : undefined,
    connectionTimeout: deadlineMs,
    greetingTimeout: deadlineMs,
    socketTimeout: deadlineMs,
    logger: false,
  })
  try {
    await withDeadline(deadlineMs, transporter.verify(), () => transporter.close())
    return config.user
      ? `EHLO and login as ${config.user} accepted by ${config.host}:${config.port}`
      : `EHLO accepted by ${config.host}:${config.port} (no ATLAS_SMTP_USER: no login tried)`
  }
  catch (error) {
    throw new Error(smtpFailure(error, config), { cause: error })
  }
  finally {
    transporter.close()
  }
}

function smtpFailure(error: unknown, config: SmtpConfig): string {
  const { code, response, message } = error as { code?: string, response?: string, message?: string }
  if (code === 'EAUTH') return `login refused for ${config.user ?? '(no user)'} on ${config.host}:${config.port}${response ? ` (${response})` : ''}`
  return networkFailure(error, config.host, config.port) ?? `SMTP at ${config.host}:${config.port} failed: ${response ?? message ?? String(error)}`
}
