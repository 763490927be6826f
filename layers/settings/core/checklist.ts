// The home page's first-run checklist: what a studio needs before Atlas works for it, each
// item read from the database or the configuration readers, each linking where it is fixed.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { readAtlasConfig, type AtlasEnv } from '#layers/atlas/core/config'
import type { ProviderStatus } from '#layers/ai/core/providers'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { findBinary } from '#layers/spawn/core/wrapper-args'
import type { Checklist, ChecklistItem } from './schemas'

/** The hub_audit action of a connection test (target: the connection's name). */
export const CONNECTION_TESTED = 'connection_tested'

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
  const counts = row!
  const imap = configured(() => readAtlasConfig(env).imap)
  const models = providers.filter(status => status.provider !== 'offline' && status.configured)
  const spawn = configured(() => readSpawnConfig(env))
  const agent = spawn ? findBinary(spawn.agentBin, env) : null
  const mailboxReached = counts.polled > 0 || counts.reached > 0
  const items: ChecklistItem[] = [
    { id: 'founder', label: 'A founder account', done: counts.founders > 0, to: '/hub/account', detail: counts.founders > 0 ? `${counts.founders} founder${counts.founders === 1 ? '' : 's'}` : 'No active founder: create one with npm run user:create -- --email you@studio.example --role founder' },
    { id: 'client', label: 'A client', done: counts.clients > 0, to: '/hub/clients', detail: counts.clients > 0 ? `${counts.clients} active client${counts.clients === 1 ? '' : 's'}` : 'Add the first client: its mail domains attribute its mail' },
    {
      id: 'mailbox', label: 'The mailbox', done: !!imap && mailboxReached, to: '/hub/settings',
      detail: !imap ? 'Set ATLAS_IMAP_HOST, ATLAS_IMAP_USER and ATLAS_IMAP_PASSWORD' : mailboxReached ? `${imap.user} on ${imap.host}, reached` : `${imap.user} on ${imap.host}: not reached yet (test it)`,
    },
    { id: 'model', label: 'A model', done: models.length > 0, to: '/hub/settings', detail: models.length > 0 ? models.map(status => status.label).join(', ') : 'No provider key: every answer comes from the offline rules' },
    { id: 'agent-cli', label: 'The agent CLI', done: !!agent, to: '/hub/settings', detail: agent ?? `"${spawn?.agentBin ?? 'claude'}" not found: set SPAWN_AGENT_BIN` },
    { id: 'first-mail', label: 'The first mail', done: counts.messages > 0, to: '/hub/atlas', detail: counts.messages > 0 ? `${counts.messages} message${counts.messages === 1 ? '' : 's'} received` : 'Nothing received yet' },
  ]
  return { items, done: items.every(item => item.done) }
}
