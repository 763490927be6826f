// Feature 9, the persona drift audit, the 1st of the month only: each seeded agent's profile
// as the registry holds it today against its reference in the roster (what seedAgents
// writes) → a drift score in [0, 1], persisted in learn_persona_drift (one row per agent per
// month; a re-run updates it); the three most drifted go into the morning mail.
//
// The score: a weighted mean of per-field distances, each in [0, 1]. A text field's distance
// is 1 − the Jaccard similarity of its word sets (a reworded persona moves a little, a
// rewritten one nearly 1); any other field's is 0 or 1. Weights: the persona itself
// (personality, cognitive frame) 3, what the agent does and where it sits (role, mission,
// perimeter, key checks, family, prompt domains, auto-spawn) 2, the rest 1. The long Markdown
// profile is left out: the seed rebuilds it from the other columns.
import { sql } from 'drizzle-orm'
import { agents } from '#db/schema/agents'
import { learnPersonaDrift } from '#db/schema/learn'
import { ROSTER, rosterRow } from '#layers/agents/core/roster/index'
import type { NightlyFeature } from './context'

type Reference = ReturnType<typeof rosterRow>
type Field = Exclude<keyof Reference, 'codename' | 'contentMd'>

export const DRIFT_WEIGHTS: Record<Field, number> = {
  personality: 3, personalityEn: 3, cognitiveFrame: 3, cognitiveFrameEn: 3,
  role: 2, roleEn: 2, jobMission: 2, jobMissionEn: 2, jobPerimeter: 2, jobPerimeterEn: 2, jobKeyChecks: 2, jobKeyChecksEn: 2,
  groupName: 2, promptDomains: 2, autoSpawn: 2,
  nickname: 1, orbite: 1, heritage: 1, heritageEn: 1, quote: 1, quoteEn: 1, inspiration: 1, inspirationEn: 1, proof: 1, proofEn: 1,
}
export const DRIFT_TOP = 3

const words = (text: string) => new Set(text.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036F]/g, '').split(/[^a-z0-9]+/).filter(Boolean))

/** 1 − Jaccard of the word sets; two empty texts are equal. */
export function textDistance(a: string, b: string): number {
  const x = words(a)
  const y = words(b)
  if (x.size === 0 && y.size === 0) return 0
  let shared = 0
  for (const w of x) if (y.has(w)) shared++
  return 1 - shared / (x.size + y.size - shared)
}

export function driftScore(current: Record<string, unknown>, reference: Reference): { score: number, fields: Record<string, number> } {
  const fields: Record<string, number> = {}
  let weighted = 0
  let total = 0
  for (const [field, weight] of Object.entries(DRIFT_WEIGHTS) as Array<[Field, number]>) {
    const want = reference[field]
    const have = current[field]
    const distance = typeof want === 'string' && typeof have === 'string' ? textDistance(have, want) : (have === want ? 0 : 1)
    if (distance > 0) fields[field] = Math.round(distance * 1000) / 1000
    weighted += weight * distance
    total += weight
  }
  return { score: Math.round((weighted / total) * 10_000) / 10_000, fields }
}

export const personaDrift: NightlyFeature = {
  name: 'persona-drift',
  routingKey: null,
  async run(ctx): ReturnType<NightlyFeature['run']> {
    if (ctx.now.getUTCDate() !== 1) return { counts: {}, items: [], drafts: [], skipped: 'not the 1st' }
    const month = ctx.now.toISOString().slice(0, 7)
    const references = new Map(ROSTER.map(agent => [agent.codename, rosterRow(agent)]))
    const current = await ctx.db.select().from(agents).orderBy(agents.codename)
    const scored = current.filter(a => references.has(a.codename))
      .map(a => ({ agent: a.codename, month, ...driftScore(a, references.get(a.codename)!) }))
      .sort((a, b) => b.score - a.score || a.agent.localeCompare(b.agent))
    if (!ctx.dryRun) {
      for (const s of scored) {
        await ctx.db.insert(learnPersonaDrift).values({ agent: s.agent, month, score: s.score, fields: s.fields })
          .onConflictDoUpdate({ target: [learnPersonaDrift.agent, learnPersonaDrift.month], set: { score: s.score, fields: s.fields, createdAt: sql`now()` } })
      }
    }
    return {
      counts: {
        agents: scored.length,
        unseeded: current.length - scored.length,
        drifted: scored.filter(s => s.score > 0).length,
        recorded: ctx.dryRun ? 0 : scored.length,
      },
      items: scored.map((s, rank) => ({ ...s, top: rank < DRIFT_TOP && s.score > 0 })),
      drafts: [],
    }
  },
}
