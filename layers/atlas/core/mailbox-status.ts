// What the inbox says about where its mail comes from: a configured IMAP mailbox (and when
// the collector last reached it), a configuration to fix, or none at all, with what to set.
import { desc } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasMailboxState } from '#db/schema/atlas'
import { AtlasConfigError, readAtlasConfig, type AtlasEnv } from './config'

export const MAILBOX_VARIABLES = ['ATLAS_IMAP_HOST', 'ATLAS_IMAP_USER', 'ATLAS_IMAP_PASSWORD'] as const

export type MailboxStatus
  = | { configured: true, host: string, mailbox: string, lastPolledAt: string | null }
    | { configured: false, problem: string | null, variables: readonly string[] }

export async function mailboxStatus(db: Db, env: AtlasEnv): Promise<MailboxStatus> {
  let imap
  try {
    imap = readAtlasConfig(env).imap
  }
  catch (error) {
    if (error instanceof AtlasConfigError) return { configured: false, problem: error.message, variables: MAILBOX_VARIABLES }
    throw error
  }
  if (!imap) return { configured: false, problem: null, variables: MAILBOX_VARIABLES }
  const [state] = await db.select().from(atlasMailboxState).orderBy(desc(atlasMailboxState.lastPolledAt)).limit(1)
  return {
    configured: true,
    host: imap.host,
    mailbox: imap.mailbox,
    lastPolledAt: state?.lastPolledAt ? state.lastPolledAt.toISOString() : null,
  }
}
