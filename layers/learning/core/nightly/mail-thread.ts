// A tenant's mail exchange as threads: the inbound mails (atlas_messages the inbox tied to the
// tenant), the team's own mails to the tenant that reached the Atlas mailbox (copies), and the
// replies a person marked sent (atlas_reply_drafts). Two mails are one thread when one names
// the other in In-Reply-To or References, or when their subjects are the same once the
// Re:/Fwd: prefixes are gone and they are at most 14 days apart; a sent reply joins the thread
// of the mail it answers. Pure: the caller reads the rows.

export interface ThreadMail {
  /** atlas_messages.id */
  id: number
  direction: 'inbound' | 'outbound'
  messageId: string | null
  inReplyTo: string | null
  references: string[]
  subject: string
  from: string | null
  at: Date
  body: string
}

export interface SentReply {
  /** atlas_reply_drafts.id */
  id: number
  /** The atlas_messages.id it answers. */
  answers: number
  at: Date
  by: string | null
  body: string
}

export interface MailThread {
  subject: string
  mails: ThreadMail[]
  replies: SentReply[]
  lastAt: Date
}

/** Subjects linked by subject alone must be this close in time. */
export const SUBJECT_LINK_DAYS = 14
const PREFIX = /^\s*((re|fw|fwd|tr|aw|wg|sv|rv|réf|ref)\s*(\[\d+\])?\s*:\s*)+/i

export function normaliseSubject(subject: string): string {
  return subject.replace(PREFIX, '').replace(/\s+/g, ' ').trim().toLowerCase()
}

const ids = (value: string | null) => (value ?? '').trim().toLowerCase()

export function linkThreads(mails: ThreadMail[], replies: SentReply[]): MailThread[] {
  const sorted = [...mails].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id)
  const parent = new Map<number, number>(sorted.map(m => [m.id, m.id]))
  const find = (id: number): number => {
    let root = id
    while (parent.get(root) !== root) root = parent.get(root)!
    parent.set(id, root)
    return root
  }
  const union = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)]
    if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb))
  }
  const byMessageId = new Map<string, number>()
  for (const m of sorted) if (ids(m.messageId)) byMessageId.set(ids(m.messageId), m.id)
  for (const m of sorted) {
    for (const ref of [m.inReplyTo, ...m.references]) {
      const other = byMessageId.get(ids(ref))
      if (other !== undefined) union(m.id, other)
    }
  }
  const lastBySubject = new Map<string, ThreadMail>()
  for (const m of sorted) {
    const key = normaliseSubject(m.subject)
    if (!key) continue
    const previous = lastBySubject.get(key)
    if (previous && m.at.getTime() - previous.at.getTime() <= SUBJECT_LINK_DAYS * 86_400_000) union(m.id, previous.id)
    lastBySubject.set(key, m)
  }
  const threads = new Map<number, MailThread>()
  for (const m of sorted) {
    const root = find(m.id)
    const thread = threads.get(root) ?? { subject: m.subject, mails: [], replies: [], lastAt: m.at }
    thread.mails.push(m)
    if (m.at > thread.lastAt) thread.lastAt = m.at
    threads.set(root, thread)
  }
  for (const r of [...replies].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id)) {
    if (!parent.has(r.answers)) continue
    const thread = threads.get(find(r.answers))!
    thread.replies.push(r)
    if (r.at > thread.lastAt) thread.lastAt = r.at
  }
  return [...threads.values()].sort((a, b) => b.lastAt.getTime() - a.lastAt.getTime())
}
