// The e-mails of the spawn engine, always to the internal team through the outbound mail
// facade (layers/atlas/core/mail, passed in as TeamMail): the summary of a handled request, the
// escalation to a human, the failure of a spawn. Never to the requester: the AI does not contact clients.
import { clip } from './text'
import type { ResultContract } from './contract'
import { formatQaError, type QaError } from './prompts'

/** Who sends and about which message, for the mail facade's audit. */
export interface MailContext {
  actor: string
  messageId?: number
}

/** What the mail facade answers (layers/atlas/core/mail/mailer.ts's SendResult, as the engine reads it). */
export type SendResult
  = | { sent: true, messageId: string, recipients: string[] }
    | { sent: false, reason: 'smtp_not_configured' | 'no_team', recipients: string[] }

/** What the engine needs of the mail facade: sending to the internal team, nothing else. */
export interface TeamMail {
  sendToTeam: (mail: { subject: string, text: string }, context: MailContext) => Promise<SendResult>
}

export interface MessageRef {
  id: number
  subject: string
  fromAddress: string | null
}

const subjectOf = (message: MessageRef) => clip(message.subject || '(no subject)', 150)

function commitsText(contract: ResultContract | null): string {
  if (!contract || contract.commits.length === 0) return '(no commit reported)'
  return contract.commits.map(c => `- ${c.sha ? `${c.sha} ` : ''}${c.message}`).join('\n')
}

export function summaryMail(
  message: MessageRef,
  contract: ResultContract,
  extra: { intent: string, qa?: string },
): { subject: string, text: string } {
  return {
    subject: `[Atlas] ${subjectOf(message)} — handled (${extra.intent})`,
    text: [
      `Atlas handled message #${message.id} from ${message.fromAddress ?? '(unknown sender)'}: "${subjectOf(message)}".`,
      '',
      contract.summary,
      '',
      'Commits:',
      commitsText(contract),
      ...(extra.qa ? ['', `QA: ${extra.qa}`] : []),
      ...(contract.replyDraft
        ? ['', 'A reply draft is waiting in the hub for a human to review and send (Atlas never writes to the client).']
        : []),
    ].join('\n'),
  }
}

export function escalationMail(
  message: MessageRef,
  reason: string,
  details: { contract?: ResultContract | null, errors?: QaError[], iterations?: number },
): { subject: string, text: string } {
  return {
    subject: `[Atlas] Escalation — ${subjectOf(message)}`,
    text: [
      `Atlas needs a human for message #${message.id} from ${message.fromAddress ?? '(unknown sender)'}: "${subjectOf(message)}".`,
      '',
      `Why: ${reason}`,
      ...(details.iterations ? [`Spawns: ${details.iterations}`] : []),
      ...(details.errors && details.errors.length > 0
        ? ['', 'Last QA errors:', ...details.errors.slice(0, 30).map(e => `- ${formatQaError(e)}`)]
        : []),
      ...(details.contract
        ? ['', 'Last summary from the agent:', details.contract.summary, '', 'Commits:', commitsText(details.contract)]
        : []),
    ].join('\n'),
  }
}

export function failureMail(message: MessageRef, reason: string, salvaged: ResultContract | null): { subject: string, text: string } {
  return {
    subject: `[Atlas] Spawn failed — ${subjectOf(message)}`,
    text: [
      `The agent spawned for message #${message.id} from ${message.fromAddress ?? '(unknown sender)'} ("${subjectOf(message)}") failed.`,
      '',
      `Why: ${reason}`,
      ...(salvaged
        ? ['', `Last checkpoint salvaged (status "${salvaged.status}"):`, salvaged.summary, '', 'Commits:', commitsText(salvaged)]
        : ['', 'No checkpoint was written.']),
    ].join('\n'),
  }
}

/** Sends, and never lets a mail problem break the pipeline: the outcome is returned in words. */
export async function sendTeamMail(mail: TeamMail, content: { subject: string, text: string }, context: MailContext): Promise<string> {
  try {
    const result = await mail.sendToTeam(content, context)
    if (result.sent) return `sent to ${result.recipients.join(', ')}`
    return result.reason === 'no_team' ? 'not sent: INTERNAL_TEAM_EMAILS is empty' : 'not sent: ATLAS_SMTP_HOST is not set'
  }
  catch (error) {
    return `not sent: ${(error as Error).message}`
  }
}
