// The idempotent roster seed (run by `npm start`): inserts the agents that are missing,
// rewrites the seeded columns of an agent only when they differ from the roster (so a
// re-run changes nothing, not even updated_at), and never touches the runtime columns
// (active, counters, last spawn). Relationships and experience rows: inserted when missing.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents, agentsExperience, agentsRelationships } from '#db/schema/agents'
import { RELATIONSHIPS, ROSTER, rosterRow } from './roster/index'

export interface SeedOutcome {
  inserted: number
  updated: number
  unchanged: number
  relationships: number
}

type SeededRow = ReturnType<typeof rosterRow>
type SeededKey = Exclude<keyof SeededRow, 'codename'>

/** The seeded columns, as camelCase keys of the row and their SQL names. */
const SEEDED: SeededKey[] = ['nickname', 'groupName', 'orbite', 'promptDomains', 'autoSpawn', 'role', 'roleEn', 'heritage', 'heritageEn',
  'cognitiveFrame', 'cognitiveFrameEn', 'personality', 'personalityEn', 'quote', 'quoteEn', 'inspiration', 'inspirationEn', 'proof', 'proofEn',
  'jobMission', 'jobMissionEn', 'jobPerimeter', 'jobPerimeterEn', 'jobKeyChecks', 'jobKeyChecksEn', 'contentMd']

export async function seedAgents(db: Db): Promise<SeedOutcome> {
  const outcome: SeedOutcome = { inserted: 0, updated: 0, unchanged: 0, relationships: 0 }
  await db.transaction(async (tx) => {
    const existing = new Map((await tx.select().from(agents)).map(row => [row.codename, row]))
    for (const agent of ROSTER) {
      const row = rosterRow(agent)
      const current = existing.get(row.codename)
      if (!current) {
        const inserted = await tx.insert(agents).values(row).onConflictDoNothing({ target: agents.codename }).returning({ id: agents.id })
        if (inserted.length) outcome.inserted++
        continue
      }
      const changed = SEEDED.filter(key => current[key] !== row[key])
      if (changed.length === 0) {
        outcome.unchanged++
        continue
      }
      const patch: Partial<SeededRow> & { updatedAt: Date } = { updatedAt: new Date() }
      for (const key of changed) (patch as Record<string, unknown>)[key] = row[key]
      await tx.update(agents).set(patch).where(sql`${agents.codename} = ${row.codename}`)
      outcome.updated++
    }
    if (RELATIONSHIPS.length) {
      const added = await tx.insert(agentsRelationships)
        .values(RELATIONSHIPS.map(r => ({ fromAgent: r.from, toAgent: r.to, kind: r.kind, note: r.note, noteEn: r.noteEn })))
        .onConflictDoNothing()
        .returning({ id: agentsRelationships.id })
      outcome.relationships = added.length
    }
    await tx.insert(agentsExperience).values(ROSTER.map(agent => ({ agent: agent.codename }))).onConflictDoNothing()
  })
  return outcome
}
