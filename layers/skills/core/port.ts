// The engine's skill router port, wired by the hub (layers/atlas): the person's enabled
// skills, indexed once per library state, routed per run; usage recorded per run.
import { sql } from 'drizzle-orm'
import type { Db } from '../../../db/connection'
import type { SelectedSkill, SkillRouterPort } from '../../agents/core/engine/skills'
import { skillText } from './execution'
import { enabledSkills, recordSkillRuns, type EnabledSkill } from './library'
import { buildSkillIndex, routeSkills, type RouterSettings, type SkillIndex } from './router'

interface Cached { key: string, index: SkillIndex, skills: Map<string, EnabledSkill> }

export function skillRouterPort(db: Db, settings?: RouterSettings): SkillRouterPort {
  const cache = new Map<string, Cached>()
  async function indexFor(email: string): Promise<Cached> {
    // The library's state for this person: any save, enablement or new skill changes the key.
    const [state] = await db.execute<{ key: string }>(sql`select concat_ws(':', (select count(*) from skills), (select max(updated_at)::text from skills), (select count(*) from skill_enablements where email = ${email}), (select max(updated_at)::text from skill_enablements where email = ${email})) as key`)
    const key = String(state!.key)
    const cached = cache.get(email)
    if (cached && cached.key === key) return cached
    const list = await enabledSkills(db, email)
    const fresh = { key, index: buildSkillIndex(list), skills: new Map(list.map(skill => [skill.name, skill])) }
    cache.set(email, fresh)
    return fresh
  }
  return {
    select: async ({ email, request, forced, choose }) => {
      const { index, skills } = await indexFor(email)
      const decision = await routeSkills(index, {
        request, forced, ...(settings ? { settings } : {}),
        ...(choose ? { choose: (text, candidates) => choose(text, candidates.map(c => ({ name: c.name, description: skills.get(c.name)?.description ?? '' }))) } : {}),
      })
      const selected: SelectedSkill[] = decision.kept.flatMap((kept) => {
        const skill = skills.get(kept.name)
        return skill ? [{ id: skill.id, name: skill.name, mode: kept.mode, text: skillText(skill, request), allowedTools: skill.allowedTools }] : []
      })
      return { skills: selected, decision: decision as unknown as Record<string, unknown> }
    },
    recordUse: async (runId, email, used) => await recordSkillRuns(db, runId, email, used),
  }
}
