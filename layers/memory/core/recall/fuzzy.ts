// Typos: a query word neither of whose stems (arms.ts, alternativeStem) the vault holds is expanded to the nearest stems
// it does hold (pg_trgm similarity over mem_lexicon, migration 0021). The expansion feeds a
// fuzzy lexical search whose hits rank after every exact lexical hit, so a misspelt word
// finds its note without ever drowning an exact match. Identifiers (add-dir) are never
// expanded: they match exactly or not at all.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { foldedText } from '#db/schema/mem'
import { wordParts } from './words'

/**
 * Trigram similarity a stem must reach to stand in for a misspelt one: pg_trgm's own default ("colecteru", two wrong letters in
 * "collecteur", keeps 0.4).
 */
export const FUZZY_SIMILARITY = 0.3
/** Nearest stems kept per misspelt word. */
export const FUZZY_PER_WORD = 3
/** Shorter stems are not expanded: one wrong letter in three is another word, not a typo. */
export const FUZZY_MIN_LENGTH = 4

export interface Expansion {
  word: string
  /** The word's stem, which the vault does not hold. */
  lexeme: string
  near: Array<{ lexeme: string, similarity: number }>
}

/**
 * `stem` (an SQL expression) is missing from the vault's lexicon: one primary-key probe, a
 * scalar sub-select with a limit, which the planner keeps as it is (`not exists` became a hash
 * anti-join that read the whole lexicon on every recall at 3,000 stems).
 */
export function missingFromLexicon(stem: SQL): SQL {
  return sql`(select x.lexeme from mem_lexicon x where x.lexeme = ${stem} limit 1) is null`
}

/** The expansions of the words the vault does not know; [] when every word is known. */
export async function fuzzyExpansions(db: Db, words: string[]): Promise<Expansion[]> {
  const plain = words.filter(word => wordParts(word).length === 1)
  if (plain.length === 0) return []
  const list = sql.join(plain.map(word => sql`${word}`), sql`, `)
  const rows = await db.execute<{ word: string, lexeme: string, near: Array<{ lexeme: string, similarity: number }> }>(sql`
    with q as (
      select word, (tsvector_to_array(to_tsvector('synedre_french'::regconfig, word)))[1] as lexeme,
        (tsvector_to_array(${sql.raw(foldedText(`to_tsvector('french'::regconfig, word)`))}::tsvector))[1] as alternative
      from unnest(array[${list}]::text[]) as word
    )
    select q.word, q.lexeme, coalesce((
      select json_agg(json_build_object('lexeme', n.lexeme, 'similarity', n.similarity) order by n.similarity desc, n.lexeme)
      from (
        select m.lexeme, similarity(m.lexeme, q.lexeme)::float8 as similarity
        from mem_lexicon m
        where m.lexeme % q.lexeme and similarity(m.lexeme, q.lexeme) >= ${FUZZY_SIMILARITY}
        order by 2 desc, 1
        limit ${FUZZY_PER_WORD}
      ) n
    ), '[]'::json) as near
    from q
    where q.lexeme is not null and length(q.lexeme) >= ${FUZZY_MIN_LENGTH}
      and ${missingFromLexicon(sql`q.lexeme`)} and (q.alternative is null or ${missingFromLexicon(sql`q.alternative`)})`)
  return [...rows].map(row => ({ word: row.word, lexeme: row.lexeme, near: row.near })).filter(item => item.near.length > 0)
}

/**
 * The stems as a tsquery literal (`'deploi' | 'securit'`), or null. Stems come from our own
 * lexicon; one holding a quote or a backslash is left out rather than escaped.
 */
export function fuzzyTsquery(expansions: Expansion[]): string | null {
  const stems = [...new Set(expansions.flatMap(item => item.near.map(near => near.lexeme)))].filter(stem => !/['\\]/.test(stem))
  return stems.length ? stems.map(stem => `'${stem}'`).join(' | ') : null
}
