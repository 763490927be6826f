// The memory family (mem_*): the structural index of the vault (level 2), the vector index
// (level 3) and the user model. Levels 1 and 2 themselves live on disk (VAULT_DIR, REFLEX_DIR).
import { bigserial, check, customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, vector } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

/** The vector index's dimension (the seed's 1024). */
export const MEM_EMBEDDING_DIMENSIONS = 1024

/**
 * The source types the vector sync indexes: the seed's ten (memory-and-learning.md §2.2) and the
 * skills' title + description, the skill router's candidates (seed 003 §13.2).
 */
export const MEM_SOURCE_TYPES = ['scar', 'victory', 'reflex', 'note', 'doctrine', 'project', 'agent', 'drill', 'procedure', 'iteration', 'skill'] as const
export type MemSourceType = typeof MEM_SOURCE_TYPES[number]

/** The vault's sub-spaces (§1, level 2). */
export const MEM_VAULT_SPACES = ['permanent', 'inbox', 'toc', 'daily', 'ephemeral'] as const
export type MemVaultSpace = typeof MEM_VAULT_SPACES[number]

/**
 * The text-search configuration of recall's lexical arm: french with unaccent before the
 * stemmer (migration 0020), so "sécurité" and "securite" are one stem.
 */
export const MEM_TS_CONFIG = 'synedre_french'

/**
 * Accents folded by `translate` (then œ and æ spelt out): the letters of French and its
 * neighbours. Built-in and immutable, so a generated column may use it, and it never turns a
 * letter into a quote — unaccent's rules do, which would break the tsvector text it edits.
 */
export const FOLD_FROM = 'àâäáãåçéèêëíìîïñóòôöõúùûüýÿ'
export const FOLD_TO = 'aaaaaaceeeeiiiinooooouuuuyy'

/** A tsvector or tsquery's text with its accents folded (an SQL expression over `expression`'s text). */
export function foldedText(expression: string): string {
  return `replace(replace(translate((${expression})::text, '${FOLD_FROM}', '${FOLD_TO}'), 'œ', 'oe'), 'æ', 'ae')`
}

/**
 * The lexical column (migration 0040). Unaccenting before the stemmer (synedre_french) costs
 * the French stemmer the endings it reads by their accents: "bloquées" gives 'bloque' where
 * "bloqué" gives 'bloqu', "déployées" 'deploye' where "déploiement" gives 'deploi', so an
 * inflection missed its note. The column holds synedre_french's stems (accents ignored,
 * identifiers' positions for phrases) and, after them, the French stemmer's own stems with
 * their accents folded — only those synedre_french does not already hold, so a word's
 * frequency (ts_rank) counts once.
 */
function stemsOf(title: string, content: string): string {
  const exact = `setweight(to_tsvector('synedre_french'::regconfig, ${title}), 'A') || setweight(to_tsvector('synedre_french'::regconfig, ${content}), 'B')`
  const stemmed = `setweight(${foldedText(`to_tsvector('french'::regconfig, ${title})`)}::tsvector, 'A') || setweight(${foldedText(`to_tsvector('french'::regconfig, ${content})`)}::tsvector, 'B')`
  return `${exact} || ts_delete(${stemmed}, tsvector_to_array(${exact}))`
}

export const MEM_TSV_EXPRESSION = stemsOf(`coalesce(title, '')`, 'content')

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

const inList = (values: readonly string[]) => sql.raw(values.map(value => `'${value}'`).join(', '))

/** One row per vault note, kept by the note indexer (incremental by modification time). */
export const memNotes = pgTable('mem_notes', {
  /** Path relative to the vault, with forward slashes (e.g. `inbox/deploy-rollback.md`). */
  path: text('path').primaryKey(),
  space: text('space').$type<MemVaultSpace>().notNull(),
  type: text('type'),
  title: text('title').notNull(),
  tags: text('tags').array().notNull().default([]),
  frontmatter: jsonb('frontmatter').$type<Record<string, unknown>>().notNull().default({}),
  body: text('body').notNull(),
  /** Outgoing `[[wiki links]]`, targets as written (alias and heading removed). */
  links: text('links').array().notNull().default([]),
  size: integer('size').notNull(),
  /** The client tenant (clients.slug) the front matter files the note under, if any. */
  tenant: text('tenant'),
  /** The agent (codename) the front matter files the note under, if any. */
  agent: text('agent'),
  fileModifiedAt: timestamp('file_modified_at', { withTimezone: true, precision: 3 }).notNull(),
  indexedAt: timestamp('indexed_at', { withTimezone: true }).notNull().defaultNow(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('mem_notes_space_idx').on(table.space),
  index('mem_notes_links_idx').using('gin', table.links),
  check('mem_notes_space_check', sql`${table.space} in (${inList(MEM_VAULT_SPACES)})`),
])

/**
 * The vector index: one chunk per source document, unique per (source type, source id),
 * with the SHA-256 fingerprint of the embedded text and the model that embedded it.
 * `tsv` is the full-text vector of title and content (MEM_TS_CONFIG), for the lexical arm.
 */
export const memEmbeddings = pgTable('mem_embeddings', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sourceType: text('source_type').$type<MemSourceType>().notNull(),
  sourceId: text('source_id').notNull(),
  title: text('title').notNull().default(''),
  /** The embedded text (the document, truncated past the chunk threshold). */
  content: text('content').notNull(),
  /** SHA-256 (hex) of `content`. */
  fingerprint: text('fingerprint').notNull(),
  provider: text('provider').notNull(),
  model: text('model').notNull(),
  embedding: vector('embedding', { dimensions: MEM_EMBEDDING_DIMENSIONS }).notNull(),
  /** The agent a scar or an iteration belongs to (codename), for agent-first recall. */
  agent: text('agent'),
  /** The client tenant a chunk belongs to (a note's front matter), for recall's tenant filter. */
  tenant: text('tenant'),
  metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
  tsv: tsvector('tsv').generatedAlwaysAs(sql.raw(MEM_TSV_EXPRESSION)),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('mem_embeddings_source_key').on(table.sourceType, table.sourceId),
  // Half precision in the index only (migration 0029): a third of the size, exact distances re-ranked by recall.
  index('mem_embeddings_embedding_hnsw_idx').using('hnsw', sql`(${table.embedding}::halfvec(1024)) halfvec_cosine_ops`),
  // No pending list (fastupdate off, migration 0029): a search never scans thousands of unmerged entries after a bulk sync.
  index('mem_embeddings_tsv_idx').using('gin', table.tsv).with({ fastupdate: false }),
  check('mem_embeddings_source_type_check', sql`${table.sourceType} in (${inList(MEM_SOURCE_TYPES)})`),
  check('mem_embeddings_fingerprint_check', sql`${table.fingerprint} ~ '^[0-9a-f]{64}$'`),
])

/**
 * Every stem of the lexical column (kept by triggers on mem_embeddings, migration 0021), with
 * a trigram index: a misspelt query word is expanded to the nearest stems the vault holds.
 */
export const memLexicon = pgTable('mem_lexicon', {
  lexeme: text('lexeme').primaryKey(),
}, table => [
  index('mem_lexicon_trgm_idx').using('gin', table.lexeme.op('gin_trgm_ops')),
])

/** The user model's dimensions (§4.7); `private` is reserved for the primary operator. */
export const MEM_USER_DIMENSIONS = ['communication_style', 'schedules', 'profile', 'skills', 'history', 'preferences', 'private'] as const
export type MemUserDimension = typeof MEM_USER_DIMENSIONS[number]

type Dimension = Record<string, unknown>

/** The user model: a structured profile in JSONB dimensions, one row per person. */
export const memUserModel = pgTable('mem_user_model', {
  /** Who the profile describes (an e-mail address or a short handle). */
  subject: text('subject').primaryKey(),
  communicationStyle: jsonb('communication_style').$type<Dimension>().notNull().default({}),
  schedules: jsonb('schedules').$type<Dimension>().notNull().default({}),
  profile: jsonb('profile').$type<Dimension>().notNull().default({}),
  skills: jsonb('skills').$type<Dimension>().notNull().default({}),
  history: jsonb('history').$type<Dimension>().notNull().default({}),
  preferences: jsonb('preferences').$type<Dimension>().notNull().default({}),
  private: jsonb('private').$type<Dimension>().notNull().default({}),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

export type MemNote = typeof memNotes.$inferSelect
export type MemEmbedding = typeof memEmbeddings.$inferSelect
export type MemUserModelRow = typeof memUserModel.$inferSelect
