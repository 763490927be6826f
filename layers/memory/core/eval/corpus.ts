// Is the golden set's corpus in the index at all? A gate run on a database where it was
// never seeded would report every query "missing" and read as a regression; it is a setup
// problem instead (exit 2, "corpus not present"). An expected identifier is present when
// some chunk's "type:id" or "type:title" contains it (the metrics' own matching rule).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { GoldenSet } from './golden'

/** Below this share of expected sources present, the corpus is taken as absent. */
export const CORPUS_PRESENT_SHARE = 0.5

export interface CorpusPresence {
  expected: number
  present: number
  /** The expected identifiers no chunk matches. */
  absent: string[]
  ok: boolean
}

export async function corpusPresence(db: Db, golden: GoldenSet): Promise<CorpusPresence> {
  const expected = [...new Set(golden.queries.flatMap(query => query.expected.map(item => item.toLowerCase())))]
  const list = sql.join(expected.map(item => sql`${item}`), sql`, `)
  const rows = await db.execute<{ wanted: string }>(sql`
    select wanted from unnest(array[${list}]::text[]) as wanted
    where exists (
      select 1 from mem_embeddings e
      where position(wanted in lower(e.source_type || ':' || e.source_id)) > 0
         or position(wanted in lower(e.source_type || ':' || e.title)) > 0
    )`)
  const found = new Set([...rows].map(row => row.wanted))
  const present = found.size
  return {
    expected: expected.length,
    present,
    absent: expected.filter(item => !found.has(item)),
    ok: present >= expected.length * CORPUS_PRESENT_SHARE,
  }
}

export const SEED_COMMAND = 'npm run recall:eval:seed'
