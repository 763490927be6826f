// The home page's first-run checklist: what a studio needs before Atlas works for it, each
// item read from the database or the configuration readers, each linking where it is fixed.
// Each word goes out in English with its catalog key beside it (settings.checklist.…), so the
// home page reads in the reader's language while other clients keep the English.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { readAtlasConfig, type AtlasEnv } from '#layers/atlas/core/config'
import type { ProviderStatus } from '#layers/ai/core/providers'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { findBinary } from '#layers/spawn/core/wrapper-args'
import type { Checklist, ChecklistItem, ChecklistItemId, MessageValues } from './schemas'

/** The hub_audit action of a connection test (target: the connection's name). */
export const CONNECTION_TESTED = 'connection_tested'

/** What the database holds that the checklist counts. */
export interface ChecklistCounts {
  founders: number
  clients: number
  /** Mailbox states the collector wrote (it polled). */
  polled: number
  /** Successful tests of the mailbox. */
  reached: number
  messages: number
}

/** Each item's label by id (settings.checklist.items.<id>). */
const LABELS: Record<ChecklistItemId, string> = {
  'founder': 'A founder account',
  'client': 'A client',
  'mailbox': 'The mailbox',
  'model': 'A model',
  'agent-cli': 'The agent CLI',
  'first-mail': 'The first mail',
}

/** The command that creates the first founder: a value, not a word to translate. */
const CREATE_FOUNDER = 'npm run user:create -- --email you@studio.example --role founder'

type Detail = Pick<ChecklistItem, 'detail' | 'detailKey' | 'detailValues'>

function said(detail: string, key: string, values?: MessageValues): Detail {
  return { detail, detailKey: `settings.checklist.details.${key}`, ...(values && { detailValues: values }) }
}

/** "1 founder" / "2 founders": one catalog message with its plural forms, picked by {count}. */
function counted(count: number, one: string, many: string, key: string): Detail {
  return said(`${count} ${count === 1 ? one : many}`, key, { count })
}

function item(id: ChecklistItemId, done: boolean, to: string, detail: Detail): ChecklistItem {
  return { id, label: LABELS[id], labelKey: `settings.checklist.items.${id}`, done, to, ...detail }
}

function configured<T>(reader: () => T): T | undefined {
  try {
    return reader()
  }
  catch {
    // A configuration error is the settings page's to show (it names the variable); here it means "not yet".
    return undefined
  }
}

export async function readChecklist(db: Db, env: AtlasEnv, providers: ProviderStatus[]): Promise<Checklist> {
  const [row] = await db.execute<{ founders: number, clients: number, polled: number, reached: number, messages: number }>(sql`
    select (select count(*)::int from hub_users where role = 'founder' and active) as founders,
           (select count(*)::int from clients where active) as clients,
           (select count(*)::int from atlas_mailbox_state) as polled,
           (select count(*)::int from hub_audit where action = ${CONNECTION_TESTED} and target = 'imap' and details->>'ok' = 'true') as reached,
           (select count(*)::int from atlas_messages) as messages`)
  return buildChecklist(row!, env, providers)
}

/** The checklist from the counts, the configuration and the AI facade's status list. */
export function buildChecklist(counts: ChecklistCounts, env: AtlasEnv, providers: ProviderStatus[]): Checklist {
  const imap = configured(() => readAtlasConfig(env).imap)
  const models = providers.filter(status => status.provider !== 'offline' && status.configured)
  const spawn = configured(() => readSpawnConfig(env))
  const agent = spawn ? findBinary(spawn.agentBin, env) : null
  const mailboxReached = counts.polled > 0 || counts.reached > 0
  const mailbox = imap && { user: imap.user, host: imap.host }
  const binary = spawn?.agentBin ?? 'claude'
  const items: ChecklistItem[] = [
    item('founder', counts.founders > 0, '/hub/account', counts.founders > 0
      ? counted(counts.founders, 'founder', 'founders', 'founders')
      : said(`No active founder: create one with ${CREATE_FOUNDER}`, 'noFounder', { command: CREATE_FOUNDER })),
    item('client', counts.clients > 0, '/hub/clients', counts.clients > 0
      ? counted(counts.clients, 'active client', 'active clients', 'clients')
      : said('Add the first client: its mail domains attribute its mail', 'noClient')),
    item('mailbox', !!mailbox && mailboxReached, '/hub/settings', !mailbox
      ? said('Set ATLAS_IMAP_HOST, ATLAS_IMAP_USER and ATLAS_IMAP_PASSWORD', 'noMailbox')
      : mailboxReached
        ? said(`${mailbox.user} on ${mailbox.host}, reached`, 'mailboxReached', mailbox)
        : said(`${mailbox.user} on ${mailbox.host}: not reached yet (test it)`, 'mailboxNotReached', mailbox)),
    // The providers' names are brands: the list is shown as written.
    item('model', models.length > 0, '/hub/settings', models.length > 0
      ? { detail: models.map(status => status.label).join(', ') }
      : said('No provider key: every answer comes from the offline rules', 'noModel')),
    // Where the binary was found is a path, shown as written.
    item('agent-cli', !!agent, '/hub/settings', agent
      ? { detail: agent }
      : said(`"${binary}" not found: set SPAWN_AGENT_BIN`, 'agentNotFound', { binary })),
    item('first-mail', counts.messages > 0, '/hub/atlas', counts.messages > 0
      ? counted(counts.messages, 'message received', 'messages received', 'messages')
      : said('Nothing received yet', 'noMessage')),
  ]
  return { items, done: items.every(entry => entry.done) }
}
