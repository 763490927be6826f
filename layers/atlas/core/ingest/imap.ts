// The Atlas mailbox over IMAP (imapflow): a new client per cycle, a deadline on the whole
// poll, everything done under a mailbox lock. Messages are always collected first
// (fetchAll) and acted upon afterwards: an IMAP command issued inside a fetch loop deadlocks.
// Sources are fetched with BODY.PEEK, so nothing is flagged \Seen until the collector says so.
import { ImapFlow } from 'imapflow'
import type { ImapConfig } from '../config'

export interface MailboxSession {
  mailbox: string
  uidValidity: number
  /** Unseen messages by UID, ascending. */
  unseenUids: () => Promise<number[]>
  sizes: (uids: number[]) => Promise<Map<number, number>>
  sources: (uids: number[]) => Promise<Map<number, Buffer>>
  headerBlocks: (uids: number[]) => Promise<Map<number, Buffer>>
  /** Sets \Seen on one message; false when the server did not confirm it. */
  markSeen: (uid: number) => Promise<boolean>
}

export class ImapDeadlineError extends Error {
  constructor(ms: number) {
    super(`the IMAP poll exceeded its deadline of ${ms} ms (ATLAS_IMAP_DEADLINE_MS)`)
    this.name = 'ImapDeadlineError'
  }
}

const CHUNK = 200

function chunks(uids: number[]): string[] {
  const out: string[] = []
  for (let i = 0; i < uids.length; i += CHUNK) out.push(uids.slice(i, i + CHUNK).join(','))
  return out
}

function createClient(config: ImapConfig): ImapFlow {
  return new ImapFlow({
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: { user: config.user, pass: config.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: Math.min(config.deadlineMs, 30_000),
    greetingTimeout: Math.min(config.deadlineMs, 16_000),
    socketTimeout: Math.min(config.deadlineMs, 120_000),
  })
}

type Guard = <R>(promise: Promise<R>) => Promise<R>

/** The opened mailbox as the collector reads it, every call under the deadline's guard, UIDs fetched in chunks. */
function mailboxSession(client: ImapFlow, mailbox: string, uidValidity: number, guard: Guard): MailboxSession {
  return {
    mailbox,
    uidValidity,
    unseenUids: async () => {
      const found = await guard(client.search({ seen: false }, { uid: true }))
      return (found || []).slice().sort((a, b) => a - b)
    },
    sizes: async (uids) => {
      const sizes = new Map<number, number>()
      for (const range of chunks(uids)) {
        for (const message of await guard(client.fetchAll(range, { uid: true, size: true }, { uid: true })))
          sizes.set(message.uid, message.size ?? 0)
      }
      return sizes
    },
    sources: async (uids) => {
      const sources = new Map<number, Buffer>()
      for (const range of chunks(uids)) {
        for (const message of await guard(client.fetchAll(range, { uid: true, source: true }, { uid: true }))) {
          if (message.source) sources.set(message.uid, message.source)
        }
      }
      return sources
    },
    headerBlocks: async (uids) => {
      const headers = new Map<number, Buffer>()
      for (const range of chunks(uids)) {
        for (const message of await guard(client.fetchAll(range, { uid: true, headers: true }, { uid: true }))) {
          if (message.headers) headers.set(message.uid, message.headers)
        }
      }
      return headers
    },
    markSeen: async uid => await guard(client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true })),
  }
}

/** Opens the mailbox, runs `work` under its lock, logs out; the deadline closes the connection. */
export async function withMailbox<T>(config: ImapConfig, work: (session: MailboxSession) => Promise<T>): Promise<T> {
  const client = createClient(config)
  let expired = false
  let connectionError: Error | undefined
  client.on('error', (error: Error) => {
    connectionError = error
  })
  const timer = setTimeout(() => {
    expired = true
    client.close()
  }, config.deadlineMs)
  const guard: Guard = <R>(promise: Promise<R>): Promise<R> => promise.catch((error: unknown) => {
    if (expired) throw new ImapDeadlineError(config.deadlineMs)
    throw error
  })
  try {
    await guard(client.connect())
    const lock = await guard(client.getMailboxLock(config.mailbox))
    try {
      const opened = client.mailbox
      if (!opened) throw new Error(`mailbox ${config.mailbox} could not be opened`)
      return await work(mailboxSession(client, config.mailbox, Number(opened.uidValidity), guard))
    }
    finally {
      lock.release()
    }
  }
  catch (error) {
    if (expired) throw new ImapDeadlineError(config.deadlineMs)
    throw connectionError && error instanceof Error && !error.message ? connectionError : error
  }
  finally {
    clearTimeout(timer)
    if (!expired && client.usable) await client.logout().catch(() => client.close())
    else client.close()
  }
}
