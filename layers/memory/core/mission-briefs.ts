// Each tenant's mission brief: what the studio does for this client, in a few paragraphs,
// kept in the tenant's configuration (clients.config.missionBrief) and injected into the
// briefing of every spawn for that tenant. Edited by a person in the hub, audited.
import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { clients, type ClientConfig } from '#db/schema/clients'

export const MISSION_BRIEF_MAX_CHARS = 4000
export const MISSION_BRIEF_SAVED_ACTION = 'memory.mission_brief_saved'

export class MissionBriefError extends Error {
  constructor(readonly code: 'not_found' | 'no_actor', message: string) {
    super(message)
    this.name = 'MissionBriefError'
  }
}

/** The tenant's mission brief from its configuration; null when none is written. */
export function missionBriefOf(config: ClientConfig | null | undefined): string | null {
  const brief = config?.missionBrief
  return typeof brief === 'string' && brief.trim() ? brief.trim() : null
}

export interface MissionBriefView {
  slug: string
  name: string
  active: boolean
  brief: string | null
  updatedAt: Date
}

export async function listMissionBriefs(db: Db): Promise<MissionBriefView[]> {
  const rows = await db.select().from(clients).orderBy(asc(clients.name))
  return rows.map(row => ({
    slug: row.slug,
    name: row.name,
    active: row.active,
    brief: missionBriefOf(row.config),
    updatedAt: row.updatedAt,
  }))
}

/** Replaces the tenant's brief (an empty one removes it); the rest of its configuration is kept. */
export async function saveMissionBrief(db: Db, request: { slug: string, brief: string, actor: string }): Promise<MissionBriefView> {
  const actor = request.actor?.trim()
  if (!actor) throw new MissionBriefError('no_actor', 'an edit of a mission brief names the person making it')
  const brief = request.brief.replace(/\r\n?/g, '\n').trim()
  return await db.transaction(async (tx) => {
    // jsonb merge in SQL: a concurrent change of another configuration key is not lost.
    const config = brief ? sql`${clients.config} || jsonb_build_object('missionBrief', ${brief}::text)` : sql`${clients.config} - 'missionBrief'`
    const [row] = await tx.update(clients).set({ config, updatedAt: sql`now()` }).where(eq(clients.slug, request.slug)).returning()
    if (!row) throw new MissionBriefError('not_found', `no tenant with slug "${request.slug}"`)
    await recordAudit(tx, { actor, action: MISSION_BRIEF_SAVED_ACTION, target: `client:${row.slug}`, details: { characters: brief.length, removed: brief === '' || undefined } })
    return { slug: row.slug, name: row.name, active: row.active, brief: missionBriefOf(row.config), updatedAt: row.updatedAt }
  })
}
