// The engine's skill router port, wired by the hub (layers/atlas): the person's enabled
// skills, indexed once per library state, their candidates recalled from the memory's index
// (scope skill, only those skills), routed per run; usage recorded per run.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import type { SelectedSkill, SkillRouterPort } from '#layers/agents/core/engine/skills'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { skillText } from './execution'
import { enabledSkills, recordSkillRuns, type EnabledSkill } from './library'
import { recallSkills, syncSkillIndex } from './memory-index'
import { buildSkillIndex, routeSkills, type RouterSettings, type SkillIndex } from './router'

interface Cached { key: string, index: SkillIndex, skills: Map<string, EnabledSkill> }

export function skillRouterPort(db: Db, embedder: Embedder, settings?: RouterSettings, log?: (line: string) => void): SkillRouterPort {
  const cache = new Map<string, Cached>()
  let indexedKey: string | undefined
  async function indexFor(email: string): Promise<Cached> {
    // The library's state for this person: any save, enablement or new skill changes the key.
    const [state] = await db.execute<{ key: string, library: string }>(sql`select concat_ws(':', (select count(*) from skills), (select max(updated_at)::text from skills), (select count(*) from skill_enablements where email = ${email}), (select max(updated_at)::text from skill_enablements where email = ${email})) as key, concat_ws(':', (select count(*) from skills), (select max(updated_at)::text from skills)) as library`)
    const key = String(state!.key)
    // A skill written past the routes (a seed, a promoted proposal, an agent's draft) reaches the memory's index here.
    if (indexedKey !== state!.library) {
      try {
        await syncSkillIndex(db, embedder)
        indexedKey = String(state!.library)
      }
      catch (error) {
        // No embedding today (an outage): route on what the index holds, retry at the next run.
        log?.(`[skills] the memory index of skills could not be brought up to date: ${(error as Error).message}`)
      }
    }
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
        request,
        forced,
        ...(settings ? { settings } : {}),
        recall: async (text, topK, exclude) =>
          await recallSkills(
            { db, embedder, log },
            text,
            [...skills.values()].filter(skill => !exclude.has(skill.name)),
            topK,
          ),
        ...(choose
          ? {
              choose: (text, candidates) =>
                choose(
                  text,
                  candidates.map(c => ({ name: c.name, description: skills.get(c.name)?.description ?? '' })),
                ),
            }
          : {}),
      })
      const selected: SelectedSkill[] = decision.kept.flatMap((kept) => {
        const skill = skills.get(kept.name)
        return skill
          ? [{ id: skill.id, name: skill.name, mode: kept.mode, text: skillText(skill, request), allowedTools: skill.allowedTools }]
          : []
      })
      return { skills: selected, decision: decision as unknown as Record<string, unknown> }
    },
    recordUse: async (runId, email, used) => await recordSkillRuns(db, runId, email, used),
  }
}
