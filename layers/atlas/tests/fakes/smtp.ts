// A loopback SMTP server (smtp-server) that captures every message it accepts.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface CapturedMail {
  from: string
  recipients: string[]
  raw: string
}

export interface SmtpCapture {
  port: number
  messages: CapturedMail[]
  env: (team: string[]) => Record<string, string>
  close: () => Promise<void>
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const envelope = session.envelope
        messages.push({
          from: envelope.mailFrom ? envelope.mailFrom.address : '',
          recipients: envelope.rcptTo.map(r => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    messages,
    env: team => ({ ATLAS_SMTP_HOST: '127.0.0.1', ATLAS_SMTP_PORT: String(port), ATLAS_SMTP_SECURE: '0', ATLAS_SMTP_FROM: 'Atlas <atlas@studio.example>', INTERNAL_TEAM_EMAILS: team.join(',') }),
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  }
}
