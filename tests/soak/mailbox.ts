// The mailbox as the soak sees it: what is still unseen (the collector has work left) and
// the Message-IDs flagged \Seen (a delivered mail \Seen but not stored is lost for good).
import type { Dovecot, DovecotUser } from '#layers/atlas/tests/fakes/dovecot'

export interface MailboxState {
  unseen: number
  seen: Set<string>
}

export async function readMailbox(dovecot: Dovecot, user: DovecotUser, mailbox: string): Promise<MailboxState> {
  const imap = await dovecot.client(user)
  try {
    const lock = await imap.getMailboxLock(mailbox)
    try {
      const state: MailboxState = { unseen: 0, seen: new Set() }
      if (!imap.mailbox || !imap.mailbox.exists) return state
      for (const message of await imap.fetchAll('1:*', { uid: true, flags: true, envelope: true })) {
        // As the soak wrote it (angle brackets included), the key atlas_messages stores too.
        const id = message.envelope?.messageId ?? ''
        if (message.flags?.has('\\Seen')) state.seen.add(id)
        else state.unseen += 1
      }
      return state
    }
    finally {
      lock.release()
    }
  }
  finally {
    await imap.logout()
  }
}
