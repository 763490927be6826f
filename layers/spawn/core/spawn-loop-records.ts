// What the spawn page reads of the learning loop: the agent a spawn was routed to, its
// briefing's token count and budget, the lessons its briefing carried (atlas_spawn_lessons,
// rank order) and the lessons it produced (by the loop: source_spawn_id; by a person from
// the spawn: the spawn:<id> tag). The spawn worker writes them (spawn-briefing.ts,
// outcomes.ts); this file is the one place the hub reads them.
import { asc, eq, or, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasSpawnLessons, atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'

export interface InjectedLesson {
  lessonId: number
  rank: number
  kind: 'scar' | 'victory'
  title: string
  agent: string | null
  recallCount: number
  archived: boolean
}

export interface ProducedLesson {
  lessonId: number
  kind: 'scar' | 'victory'
  title: string
  agent: string | null
  importance: number | null
  createdAt: string
  /** Who recorded it: the spawn worker for the loop's own, a person's e-mail for one recorded by hand. */
  recordedBy: string | null
}

export interface SpawnRouting {
  /** The agent's codename the spawn was routed to; null when not recorded. */
  agent: string | null
  briefingTokens: number | null
  briefingBudget: number | null
}

export interface SpawnLoopRecords {
  routing: (spawnId: string) => Promise<SpawnRouting>
  injected: (spawnId: string) => Promise<InjectedLesson[]>
  produced: (spawnId: string) => Promise<ProducedLesson[]>
}

const kindOf = (registryKind: string) => (registryKind === 'success' ? 'victory' as const : 'scar' as const)

export function databaseLoopRecords(db: Db): SpawnLoopRecords {
  return {
    async routing(spawnId) {
      const [row] = await db
        .select({
          agent: atlasSpawns.agentCodename,
          briefingTokens: atlasSpawns.briefingTokens,
          briefingBudget: atlasSpawns.briefingBudget,
        })
        .from(atlasSpawns)
        .where(eq(atlasSpawns.id, spawnId))
      return row ?? { agent: null, briefingTokens: null, briefingBudget: null }
    },
    async injected(spawnId) {
      const rows = await db.select({
        lessonId: learnLessons.id, rank: atlasSpawnLessons.rank, kind: learnLessons.kind, title: learnLessons.title,
        agent: learnLessons.agent, recallCount: learnLessons.recallCount, archivedAt: learnLessons.archivedAt,
      }).from(atlasSpawnLessons).innerJoin(learnLessons, eq(learnLessons.id, atlasSpawnLessons.lessonId))
        .where(eq(atlasSpawnLessons.spawnId, spawnId)).orderBy(asc(atlasSpawnLessons.rank), asc(learnLessons.id))
      return rows.map(({ archivedAt, kind, ...row }) => ({ ...row, kind: kindOf(kind), archived: archivedAt !== null }))
    },
    async produced(spawnId) {
      const rows = await db
        .select({
          lessonId: learnLessons.id,
          kind: learnLessons.kind,
          title: learnLessons.title,
          agent: learnLessons.agent,
          importance: learnLessons.importance,
          createdAt: learnLessons.createdAt,
          recordedBy: learnLessons.recordedBy,
        })
        .from(learnLessons)
        .where(or(eq(learnLessons.sourceSpawnId, spawnId), sql`${`spawn:${spawnId}`} = any(${learnLessons.tags})`))
        .orderBy(asc(learnLessons.id))
      return rows.map(row => ({ ...row, kind: kindOf(row.kind), createdAt: new Date(row.createdAt).toISOString() }))
    },
  }
}
