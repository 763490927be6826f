// The real collaborators of the briefing, from the memory and worksites domains: hybrid
// recall over scars (layers/memory recall engine), the user model's core slice
// (getProfile + formatForBriefing) and the chantier brief (work_chantiers).
import { eq } from 'drizzle-orm'
import type { Db } from '../../../db/client'
import { workChantiers } from '../../../db/schema/work'
import { recall, type RecallDeps } from '../../memory/core/recall/engine'
import { formatForBriefing } from '../../memory/core/user-model/briefing'
import { getProfile, UserModelError } from '../../memory/core/user-model/profile'
import type { MissionBriefLookup, ScarRecall, UserCoreLookup } from './briefing'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Hybrid recall over scars; `readOnly` leaves the scars' recall counters alone (previews). */
export function scarRecallFrom(deps: RecallDeps, options: { readOnly?: boolean } = {}): ScarRecall {
  return async ({ query, agent, k }) => {
    const response = await recall(deps, { query: query.slice(0, 2000), k, mode: 'hybrid', scope: ['scar'], agent, readOnly: options.readOnly })
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

/** A chantier's brief when the project reference is a chantier id. */
export function missionBriefFrom(db: Db): MissionBriefLookup {
  return async (project) => {
    if (!UUID.test(project)) return null
    const [row] = await db.select({ title: workChantiers.title, brief: workChantiers.brief }).from(workChantiers).where(eq(workChantiers.id, project))
    return row ?? null
  }
}
