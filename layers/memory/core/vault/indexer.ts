// The note indexer (memory-and-learning.md §2.1): the structural index of the vault in
// mem_notes. Incremental by modification time (and size); deleted notes removed; a note with
// a broken frontmatter is reported by path and skipped; symbolic links refused. `force`
// re-indexes everything, `stats` counts without writing.
import { readFileSync } from 'node:fs'
import { inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memNotes } from '#db/schema/mem'
import { NoteParseError, parseNote } from './frontmatter'
import { ensureVaultLayout, VAULT_SPACES, type VaultSpace } from './layout'
import { scanVault, type ScannedNote, type VaultProblem } from './scan'

export interface IndexNotesOptions {
  force?: boolean
  /** Count without writing (the seed's stats mode). */
  stats?: boolean
}

export interface IndexNotesReport {
  mode: 'index' | 'force' | 'stats'
  scanned: number
  /** Notes (re-)indexed — or that would be, in stats mode. */
  indexed: number
  unchanged: number
  /** Index rows of notes that no longer exist — removed, or that would be. */
  removed: number
  /** Notes skipped because their frontmatter is broken (or the file unreadable). */
  broken: VaultProblem[]
  /** Symbolic links and other paths refused. */
  refused: VaultProblem[]
  bySpace: Record<VaultSpace, number>
  vaultExists: boolean
}

export interface IndexNotesDeps {
  db: Db
  vaultDir: string
}

type NoteRow = typeof memNotes.$inferInsert

export function readNoteRow(note: Pick<ScannedNote, 'path' | 'space' | 'absolute' | 'size' | 'modifiedAt'>): NoteRow {
  const text = readFileSync(note.absolute, 'utf8')
  const parsed = parseNote(text, note.path.split('/').pop()!)
  return {
    path: note.path,
    space: note.space,
    type: parsed.type,
    title: parsed.title,
    tags: parsed.tags,
    tenant: parsed.tenant,
    agent: parsed.agent,
    frontmatter: parsed.frontmatter,
    body: parsed.body,
    links: parsed.links,
    size: note.size,
    fileModifiedAt: note.modifiedAt,
  }
}

export async function upsertNoteRow(db: Pick<Db, 'insert'>, row: NoteRow): Promise<void> {
  await db.insert(memNotes).values(row).onConflictDoUpdate({
    target: memNotes.path,
    set: {
      space: row.space,
      type: row.type,
      title: row.title,
      tags: row.tags,
      tenant: row.tenant ?? null,
      agent: row.agent ?? null,
      frontmatter: row.frontmatter,
      body: row.body,
      links: row.links,
      size: row.size,
      fileModifiedAt: row.fileModifiedAt,
      indexedAt: sql`now()`,
    },
  })
}

function problemOf(error: unknown): string {
  if (error instanceof NoteParseError) return error.message
  const code = (error as NodeJS.ErrnoException).code
  return code ? `unreadable (${code})` : (error as Error).message
}

export async function indexNotes(deps: IndexNotesDeps, options: IndexNotesOptions = {}): Promise<IndexNotesReport> {
  const { db, vaultDir } = deps
  const stats = options.stats ?? false
  if (!stats) ensureVaultLayout(vaultDir)
  const scan = scanVault(vaultDir)
  const stored = new Map(
    (await db.select({ path: memNotes.path, modifiedAt: memNotes.fileModifiedAt, size: memNotes.size }).from(memNotes)).map(row => [
      row.path,
      row,
    ]),
  )
  const bySpace = Object.fromEntries(VAULT_SPACES.map(space => [space, 0])) as Record<VaultSpace, number>
  const broken: VaultProblem[] = []
  let indexed = 0
  let unchanged = 0

  for (const note of scan.notes) {
    bySpace[note.space]++
    const previous = stored.get(note.path)
    const changed = options.force || !previous || previous.modifiedAt.getTime() !== note.modifiedAt.getTime() || previous.size !== note.size
    if (!changed) {
      unchanged++
      continue
    }
    let row: NoteRow
    try {
      row = readNoteRow(note)
    }
    catch (error) {
      broken.push({ path: note.path, problem: problemOf(error) })
      continue
    }
    if (!stats) await upsertNoteRow(db, row)
    indexed++
  }

  const present = new Set(scan.notes.map(note => note.path))
  const gone = [...stored.keys()].filter(path => !present.has(path))
  if (!stats && gone.length > 0) {
    for (let start = 0; start < gone.length; start += 500) {
      await db.delete(memNotes).where(inArray(memNotes.path, gone.slice(start, start + 500)))
    }
  }

  return {
    mode: stats ? 'stats' : options.force ? 'force' : 'index',
    scanned: scan.notes.length,
    indexed,
    unchanged,
    removed: gone.length,
    broken,
    refused: scan.refused,
    bySpace,
    vaultExists: scan.exists || !stats,
  }
}
