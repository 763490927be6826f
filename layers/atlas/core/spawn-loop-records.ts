// What the spawn page reads of the learning loop (issue 15): the agent a spawn was routed to,
// its briefing's token count and budget, the lessons its briefing carried (a link table,
// rank order) and the lessons it produced. The pipeline half of the issue (15a) writes them;
// this file is the one place the hub reads them, behind the SpawnLoopRecords interface.
//
// Until that half lands, a database without those columns and that link table answers
// "not recorded" (null, []) rather than failing: the columns and table are looked up once in
// the catalogue among a fixed list of names (never from input), so the page works before and
// after the merge. The lead can swap this adapter for typed drizzle queries at merge.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../../db/client'

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

const AGENT_COLUMNS = ['agent_codename', 'agent', 'codename'] as const
const TOKENS_COLUMNS = ['briefing_tokens'] as const
const BUDGET_COLUMNS = ['briefing_budget', 'briefing_token_budget'] as const
const LESSON_SPAWN_COLUMNS = ['source_spawn_id', 'spawn_id'] as const
const LINK_TABLES = ['atlas_spawn_lessons', 'learn_lesson_injections'] as const

interface Catalogue {
  spawnColumns: Set<string>
  lessonColumns: Set<string>
  linkTable: string | null
}

async function readCatalogue(db: Db): Promise<Catalogue> {
  const columns = await db.execute<{ table_name: string, column_name: string }>(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and table_name in ('atlas_spawns', 'learn_lessons', ${sql.join(LINK_TABLES.map(t => sql`${t}`), sql`, `)})`)
  const of = (table: string) => new Set(columns.filter(c => c.table_name === table).map(c => c.column_name))
  const linkTable = LINK_TABLES.find((table) => {
    const found = of(table)
    return found.has('spawn_id') && found.has('lesson_id')
  }) ?? null
  return { spawnColumns: of('atlas_spawns'), lessonColumns: of('learn_lessons'), linkTable }
}

const pick = (present: Set<string>, names: readonly string[]) => names.find(name => present.has(name)) ?? null
const kindOf = (registryKind: string) => (registryKind === 'success' ? 'victory' as const : 'scar' as const)

/** The loop's records as the database holds them (see the note at the top). */
export function databaseLoopRecords(db: Db): SpawnLoopRecords {
  let catalogue: Promise<Catalogue> | null = null
  const known = () => (catalogue ??= readCatalogue(db).catch((error) => {
    catalogue = null
    throw error
  }))
  return {
    async routing(spawnId) {
      const { spawnColumns } = await known()
      const agent = pick(spawnColumns, AGENT_COLUMNS)
      const tokens = pick(spawnColumns, TOKENS_COLUMNS)
      const budget = pick(spawnColumns, BUDGET_COLUMNS)
      if (!agent && !tokens && !budget) return { agent: null, briefingTokens: null, briefingBudget: null }
      const column = (name: string | null): SQL => (name ? sql`${sql.identifier(name)}` : sql`null`)
      const [row] = await db.execute<{ agent: string | null, tokens: number | null, budget: number | null }>(sql`
        select ${column(agent)}::text as agent, ${column(tokens)}::int as tokens, ${column(budget)}::int as budget
        from atlas_spawns where id = ${spawnId}::uuid`)
      return { agent: row?.agent ?? null, briefingTokens: row?.tokens ?? null, briefingBudget: row?.budget ?? null }
    },
    async injected(spawnId) {
      const { linkTable } = await known()
      if (!linkTable) return []
      const rows = await db.execute<{ lesson_id: number | string, rank: number | null, kind: string, title: string, agent: string | null, recall_count: number, archived: boolean }>(sql`
        select l.id as lesson_id, s.rank, l.kind, l.title, l.agent, l.recall_count, l.archived_at is not null as archived
        from ${sql.identifier(linkTable)} s join learn_lessons l on l.id = s.lesson_id
        where s.spawn_id = ${spawnId}::uuid order by s.rank nulls last, l.id`)
      return rows.map((row, index) => ({ lessonId: Number(row.lesson_id), rank: row.rank ?? index + 1, kind: kindOf(row.kind), title: row.title, agent: row.agent, recallCount: row.recall_count, archived: row.archived }))
    },
    async produced(spawnId) {
      const { lessonColumns } = await known()
      const column = pick(lessonColumns, LESSON_SPAWN_COLUMNS)
      // A lesson recorded by hand from the spawn carries it as a tag (spawn:<id>).
      const bySpawn = column ? sql`or ${sql.identifier(column)}::text = ${spawnId}` : sql``
      const rows = await db.execute<{ id: number | string, kind: string, title: string, agent: string | null, importance: number | null, created_at: string | Date }>(sql`
        select id, kind, title, agent, importance, created_at from learn_lessons
        where ${`spawn:${spawnId}`} = any(tags) ${bySpawn} order by id`)
      return rows.map(row => ({ lessonId: Number(row.id), kind: kindOf(row.kind), title: row.title, agent: row.agent, importance: row.importance, createdAt: new Date(row.created_at).toISOString() }))
    },
  }
}
