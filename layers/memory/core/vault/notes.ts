// Reading the structural index for the hub: notes by sub-space, one note with its
// frontmatter, its outgoing links resolved to notes, and its backlinks.
import { and, asc, eq, ilike, or, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memNotes, type MemVaultSpace } from '#db/schema/mem'
import { linkNames, linkTargets } from './links'

export interface NoteSummary {
  path: string
  space: MemVaultSpace
  type: string | null
  title: string
  tags: string[]
  size: number
  linkCount: number
  fileModifiedAt: string
  indexedAt: string
}

export interface LinkedNote {
  path: string
  title: string
  space: MemVaultSpace
}

export interface NoteDetail extends NoteSummary {
  frontmatter: Record<string, unknown>
  body: string
  outgoing: Array<{ target: string, note: LinkedNote | null }>
  backlinks: LinkedNote[]
}

export async function listNotes(db: Db, filter: { space?: MemVaultSpace, q?: string, limit?: number } = {}): Promise<NoteSummary[]> {
  const conditions = []
  if (filter.space) conditions.push(eq(memNotes.space, filter.space))
  const q = filter.q?.trim()
  if (q) {
    const pattern = `%${q.replace(/[\\%_]/g, match => `\\${match}`)}%`
    conditions.push(or(ilike(memNotes.title, pattern), ilike(memNotes.path, pattern)))
  }
  const rows = await db
    .select({
      path: memNotes.path,
      space: memNotes.space,
      type: memNotes.type,
      title: memNotes.title,
      tags: memNotes.tags,
      size: memNotes.size,
      linkCount: sql<number>`cardinality(${memNotes.links})`,
      fileModifiedAt: memNotes.fileModifiedAt,
      indexedAt: memNotes.indexedAt,
    })
    .from(memNotes)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(asc(memNotes.space), asc(memNotes.path))
    .limit(filter.limit ?? 500)
  return rows.map(row => ({
    ...row,
    linkCount: Number(row.linkCount),
    fileModifiedAt: row.fileModifiedAt.toISOString(),
    indexedAt: row.indexedAt.toISOString(),
  }))
}

export async function getNote(db: Db, path: string): Promise<NoteDetail | null> {
  const [row] = await db.select().from(memNotes).where(eq(memNotes.path, path))
  if (!row) return null
  const all = await db
    .select({ path: memNotes.path, title: memNotes.title, space: memNotes.space })
    .from(memNotes)
    .orderBy(asc(memNotes.path))
  // A link names a file first; a title only when no file answers to it.
  const resolve = (target: string) =>
    all.find(note => linkTargets(target, note.path)) ?? all.find(note => linkTargets(target, note.path, note.title)) ?? null
  const outgoing = row.links.map(target => ({ target, note: resolve(target) }))
  const names = linkNames(path, row.title)
  const backlinks = await db.select({ path: memNotes.path, title: memNotes.title, space: memNotes.space }).from(memNotes)
    .where(and(
      sql`${memNotes.path} <> ${path}`,
      sql`exists (select 1 from unnest(${memNotes.links}) as link where lower(regexp_replace(link, '\\.md$', '', 'i')) in ${names})`,
    ))
    .orderBy(asc(memNotes.path))
  return {
    path: row.path,
    space: row.space,
    type: row.type,
    title: row.title,
    tags: row.tags,
    size: row.size,
    linkCount: row.links.length,
    fileModifiedAt: row.fileModifiedAt.toISOString(),
    indexedAt: row.indexedAt.toISOString(),
    frontmatter: row.frontmatter,
    body: row.body,
    outgoing,
    backlinks,
  }
}
