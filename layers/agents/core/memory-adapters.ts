// The real collaborators of the briefing, from the memory and worksites domains: hybrid
// recall over scars (layers/memory recall engine), or over scars and victories for a spawn,
// hits below the relevance floor dropped (a briefing gets no least-bad noise); the user
// model's core slice (getProfile + formatForBriefing), the chantier brief (work_chantiers)
// and a tenant's mission brief (clients.config.missionBrief).
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { clients } from '#db/schema/clients'
import { workChantiers } from '#db/schema/work'
import { workProjects } from '#db/schema/worksites'
import { recall, type RecallDeps } from '#layers/memory/core/recall/engine'
import { formatForBriefing } from '#layers/memory/core/user-model/briefing'
import { getProfile, UserModelError } from '#layers/memory/core/user-model/profile'
import type { MissionBriefLookup, ScarRecall, UserCoreLookup } from './briefing'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Hybrid recall over scars; `readOnly` leaves the scars' recall counters alone (previews); `tenants` scopes it (recall's filter). */
export function scarRecallFrom(deps: RecallDeps, options: { readOnly?: boolean, tenants?: string[] | null } = {}): ScarRecall {
  return async ({ query, agent, k }) => {
    const response = await recall(deps, { query: query.slice(0, 2000), k, mode: 'hybrid', scope: ['scar'], agent, readOnly: options.readOnly, belowFloor: 'drop', tenants: options.tenants ?? null })
    return response.hits.filter(hit => hit.sourceType === 'scar').map(hit => ({ id: hit.sourceId, title: hit.title, snippet: hit.snippet, agent: hit.agent }))
  }
}

/** The user model's core slice as briefing text; null when there is no (single) profile. */
export function userCoreFrom(db: Db, subject?: string): UserCoreLookup {
  return async () => {
    try {
      const { profile } = await getProfile(db, { slice: 'core', subject })
      return formatForBriefing(profile, 'core')
    }
    catch (error) {
      if (error instanceof UserModelError) return null
      throw error
    }
  }
}

/** The brief of the project reference: a chantier's brief, or a worksites project's mission brief. */
export function missionBriefFrom(db: Db): MissionBriefLookup {
  return async (project) => {
    if (!UUID.test(project)) return null
    const [row] = await db
      .select({ title: workChantiers.title, brief: workChantiers.brief })
      .from(workChantiers)
      .where(eq(workChantiers.id, project))
    if (row) return row
    const [placed] = await db
      .select({ title: workProjects.name, brief: workProjects.missionBrief })
      .from(workProjects)
      .where(eq(workProjects.id, project))
    return placed ?? null
  }
}

/**
 * Hybrid recall over scars AND victories, read-only: the caller counts only the lessons it
 * actually injects (after the budget). Archived lessons are never served (the recall arms
 * check archived_at per candidate, even for a lesson archived since the last vector sync).
 */
export function lessonRecallFrom(deps: RecallDeps): ScarRecall {
  return async ({ query, agent, k }) => {
    const response = await recall(deps, { query: query.slice(0, 2000), k, mode: 'hybrid', scope: ['scar', 'victory'], agent, readOnly: true, belowFloor: 'drop' })
    return response.hits.filter(hit => (hit.sourceType === 'scar' || hit.sourceType === 'victory') && /^\d{1,18}$/.test(hit.sourceId))
      .map(hit => ({ id: hit.sourceId, title: hit.title, snippet: hit.snippet, agent: hit.agent, kind: hit.sourceType === 'victory' ? 'victory' as const : 'scar' as const }))
  }
}

/** Where a tenant's mission brief lives: the `missionBrief` text of its configuration. */
export const MISSION_BRIEF_KEY = 'missionBrief'

/** A tenant's mission brief when the project reference is a tenant (clients.id); null when it has none. */
export function tenantMissionBriefFrom(db: Db): MissionBriefLookup {
  return async (tenantId) => {
    if (!UUID.test(tenantId)) return null
    const [row] = await db.select({ name: clients.name, config: clients.config }).from(clients).where(eq(clients.id, tenantId))
    const brief = row?.config?.[MISSION_BRIEF_KEY]
    return row && typeof brief === 'string' && brief.trim() ? { title: `${row.name} — mission brief`, brief: brief.trim() } : null
  }
}
