// A spawn's context (its row, message, classification, tenant, previous attempt, routed
// agent) and the two writes every step of the run makes: the inbox status and the spawn row.
import { eq, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { atlasSpawns, type AtlasSpawn } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import type { InboxStatus } from './vocabulary'
import type { MessageRef } from './notify'
import type { PromptTenant } from './prompts'

export interface SpawnContext {
  spawn: AtlasSpawn
  message: MessageRef & { fromName: string | null, textBody: string, receivedAt: Date }
  inbox: { intent: string | null, confidence: number | null, model: string | null, reasoning: string | null, tenantId: string | null }
  /** branch: checked out and committed on (null: the repository's default); deploy: the named deploy command (null: DEPLOY_COMMAND). */
  tenant: (PromptTenant & { id: string, repository: string | null, branch: string | null, deploy: string | null }) | null
  previous: AtlasSpawn | null
  /** The registry agent the message was routed to (set by the run once routed); null: unrouted. */
  agent: string | null
}

export async function loadContext(db: Db, spawnId: string): Promise<SpawnContext | null> {
  const [spawn] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawnId))
  if (!spawn) return null
  const [row] = await db
    .select()
    .from(atlasMessages)
    .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .where(eq(atlasMessages.id, spawn.messageId))
  if (!row) return null
  const [client] = row.atlas_inbox.tenantId ? await db.select().from(clients).where(eq(clients.id, row.atlas_inbox.tenantId)) : []
  const [previous] = spawn.previousSpawnId ? await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawn.previousSpawnId)) : []
  const m = row.atlas_messages
  const i = row.atlas_inbox
  return {
    spawn,
    message: {
      id: m.id,
      subject: m.subject,
      fromAddress: m.fromAddress,
      fromName: m.fromName,
      textBody: m.textBody,
      receivedAt: m.receivedAt,
    },
    inbox: { intent: i.intent, confidence: i.confidence, model: i.model, reasoning: i.reasoning, tenantId: i.tenantId },
    tenant: client
      ? {
          id: client.id,
          slug: client.slug,
          name: client.name,
          preprodUrl: typeof client.config?.preprodUrl === 'string' ? client.config.preprodUrl : null,
          repository: typeof client.config?.repository === 'string' ? client.config.repository : null,
          branch: typeof client.config?.branch === 'string' ? client.config.branch : null,
          deploy: typeof client.config?.deploy === 'string' ? client.config.deploy : null,
        }
      : null,
    previous: previous ?? null,
    agent: spawn.agentCodename,
  }
}

export async function setInbox(
  db: Db | Tx,
  messageId: number,
  status: InboxStatus,
  extra: { reason?: string | null, needsHuman?: boolean, intent?: string } = {},
): Promise<void> {
  await db.execute(sql`
    update atlas_inbox set status = ${status}, status_reason = ${extra.reason ?? null},
      needs_human = ${extra.needsHuman ?? false} or needs_human,
      intent = coalesce(${extra.intent ?? null}, intent),
      revision = revision + 1, updated_at = now()
    where message_id = ${messageId}`)
}

/** Updates the spawn row while it is still ours (running); false when recovery took it. */
export async function updateSpawn(db: Db | Tx, spawnId: string, values: Partial<typeof atlasSpawns.$inferInsert>): Promise<boolean> {
  const rows = await db.update(atlasSpawns).set(values).where(sql`${atlasSpawns.id} = ${spawnId}::uuid and ${atlasSpawns.status} = 'running'`).returning({ id: atlasSpawns.id })
  return rows.length === 1
}
