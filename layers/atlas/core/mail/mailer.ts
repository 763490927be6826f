// The outbound mail facade (nodemailer). The AI never contacts an external person: every
// recipient (To, Cc, Bcc) must be on the internal team allowlist (INTERNAL_TEAM_EMAILS);
// otherwise nothing is sent at all and the refusal is audited as mail_refused_external.
// SMTP settings and credentials come from the environment only.
import nodemailer from 'nodemailer'
import addressparser from 'nodemailer/lib/addressparser'
import type { Db } from '#db/client'
import { recordAtlasAudit } from '../audit'
import { AtlasConfigError, emailList, type AtlasEnv } from '../config'
import { clip, normaliseAddress } from '#layers/spawn/core/text'

export interface MailConfig {
  smtp?: { host: string, port: number, secure: boolean, user?: string, password?: string }
  from: string
  /** The internal team: the only addresses mail may go to. */
  team: string[]
}

export function readMailConfig(env: AtlasEnv): MailConfig {
  const host = env.ATLAS_SMTP_HOST?.trim()
  const secure = ['1', 'true', 'yes', 'on'].includes((env.ATLAS_SMTP_SECURE ?? '').trim().toLowerCase())
  const rawPort = env.ATLAS_SMTP_PORT?.trim()
  const port = rawPort ? Number(rawPort) : (secure ? 465 : 587)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AtlasConfigError('ATLAS_SMTP_PORT', `not a port number: "${rawPort}"`)
  const user = env.ATLAS_SMTP_USER?.trim() || undefined
  const team = emailList(env, 'INTERNAL_TEAM_EMAILS')
  return {
    smtp: host ? { host, port, secure, user, password: env.ATLAS_SMTP_PASSWORD || undefined } : undefined,
    from: env.ATLAS_SMTP_FROM?.trim() || (user && user.includes('@') ? `Atlas <${user}>` : 'Atlas <atlas@localhost>'),
    team,
  }
}

export interface OutboundMail {
  to: string | string[]
  cc?: string | string[]
  bcc?: string | string[]
  subject: string
  text: string
  html?: string
}

export type SendResult
  = | { sent: true, messageId: string, recipients: string[] }
    | { sent: false, reason: 'smtp_not_configured' | 'no_team', recipients: string[] }

/** Refused before anything left: at least one recipient is not on the internal team allowlist. */
export class MailRefusedError extends Error {
  readonly code = 'mail_refused_external'
  constructor(readonly refused: string[]) {
    super(`mail refused: ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the internal team allowlist (INTERNAL_TEAM_EMAILS); the AI never writes to anyone outside the team`)
    this.name = 'MailRefusedError'
  }
}

export interface MailContext {
  /** Who asks to send (an automate name or a hub user), for the audit. */
  actor: string
  /** The Atlas message the mail is about, if any. */
  messageId?: number
}

export interface Mailer {
  readonly team: string[]
  readonly configured: boolean
  send: (mail: OutboundMail, context: MailContext) => Promise<SendResult>
  /** To every address of the internal team. */
  sendToTeam: (mail: Omit<OutboundMail, 'to' | 'cc' | 'bcc'>, context: MailContext) => Promise<SendResult>
  close: () => void
}

/** Every address named (groups flattened); an entry without a usable address is kept as written, so it is refused. */
export function recipientsOf(value: string | string[] | undefined): string[] {
  const entries = value === undefined ? [] : Array.isArray(value) ? value : [value]
  const out: string[] = []
  const visit = (list: ReturnType<typeof addressparser>) => {
    for (const item of list) {
      if ('group' in item && Array.isArray(item.group)) visit(item.group)
      else out.push(normaliseAddress((item as { address?: string }).address) || `(${(item as { name?: string }).name ?? 'unreadable'})`)
    }
  }
  for (const entry of entries) visit(addressparser(entry, { flatten: false }) as ReturnType<typeof addressparser>)
  return out
}

/** What the facade needs of a nodemailer transport. */
export interface MailTransport {
  sendMail: (mail: {
    from: string
    to: string | string[]
    cc?: string | string[]
    bcc?: string | string[]
    subject: string
    text: string
    html?: string
  }) => Promise<{ messageId?: string }>
  close?: () => void
}

export interface MailerDeps {
  config: MailConfig
  db: Pick<Db, 'insert'>
  /** A transport to use instead of SMTP from the configuration. */
  transport?: MailTransport
  log?: (line: string) => void
}

export function createMailer(deps: MailerDeps): Mailer {
  const { config } = deps
  const allowed = new Set(config.team)
  const transport: MailTransport | undefined = deps.transport ?? (config.smtp
    ? nodemailer.createTransport({
        host: config.smtp.host,
        port: config.smtp.port,
        secure: config.smtp.secure,
        auth: config.smtp.user ? { user: config.smtp.user, pass: config.smtp.password ?? '' } : undefined,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 30_000,
      })
    : undefined)

  const send = async (mail: OutboundMail, context: MailContext): Promise<SendResult> => {
    const recipients = [...recipientsOf(mail.to), ...recipientsOf(mail.cc), ...recipientsOf(mail.bcc)]
    const refused = recipients.filter(address => !allowed.has(address))
    if (recipients.length === 0) refused.push('(no recipient)')
    if (refused.length > 0) {
      await recordAtlasAudit(deps.db, {
        messageId: context.messageId ?? null,
        action: 'mail_refused_external',
        actor: context.actor,
        details: { refused, recipients, subject: clip(mail.subject, 300) },
      })
      throw new MailRefusedError(refused)
    }
    if (!transport) {
      deps.log?.(`[mail] SMTP is not configured (ATLAS_SMTP_HOST): not sent to ${recipients.join(', ')}: ${clip(mail.subject, 200)}`)
      return { sent: false, reason: 'smtp_not_configured', recipients }
    }
    const info = await transport.sendMail({
      from: config.from,
      to: mail.to,
      cc: mail.cc,
      bcc: mail.bcc,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    })
    return { sent: true, messageId: String(info.messageId ?? ''), recipients }
  }

  return {
    team: config.team,
    configured: Boolean(transport),
    send,
    sendToTeam: async (mail, context) => {
      if (config.team.length === 0) {
        deps.log?.(`[mail] INTERNAL_TEAM_EMAILS is empty: nobody to send "${clip(mail.subject, 200)}" to`)
        return { sent: false, reason: 'no_team', recipients: [] }
      }
      return await send({ ...mail, to: config.team }, context)
    },
    close: () => transport?.close?.(),
  }
}
