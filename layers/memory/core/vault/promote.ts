// Promotion to the permanent zone: only ever a human action in the hub, audited. The note
// moves from the inbox to the same place under permanent/ — never over an existing
// permanent note (no merge between the zones), never through a symbolic link.
import { createHash } from 'node:crypto'
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs'
import { dirname } from 'node:path'
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { memNotes } from '#db/schema/mem'
import { parseNote } from './frontmatter'
import { readNoteRow, upsertNoteRow } from './indexer'
import { resolveVaultPath } from './paths'

export class PromoteError extends Error {
  constructor(readonly code: 'not_inbox' | 'not_found' | 'exists' | 'no_actor' | 'broken_frontmatter', message: string) {
    super(message)
    this.name = 'PromoteError'
  }
}

export interface PromoteResult {
  from: string
  to: string
  sha256: string
}

export const PROMOTE_AUDIT_ACTION = 'memory_note_promoted'

export async function promoteToPermanent(
  deps: { db: Db, vaultDir: string },
  request: { path: string, actor: string },
): Promise<PromoteResult> {
  const { db, vaultDir } = deps
  const actor = request.actor?.trim()
  if (!actor) throw new PromoteError('no_actor', 'promotion is a human action: the person promoting must be named')
  const source = resolveVaultPath(vaultDir, request.path)
  if (source.space !== 'inbox')
    throw new PromoteError('not_inbox', `${source.relative}: only inbox notes can be promoted to the permanent zone`)
  let isFile = false
  try {
    isFile = lstatSync(source.absolute).isFile()
  }
  catch {
    /* missing */
  }
  if (!isFile) throw new PromoteError('not_found', `${source.relative}: no such note in the inbox`)
  const text = readFileSync(source.absolute, 'utf8')
  try {
    parseNote(text, source.relative)
  }
  catch (error) {
    throw new PromoteError('broken_frontmatter', `${source.relative}: ${(error as Error).message}; fix it before promoting`)
  }
  const target = resolveVaultPath(vaultDir, `permanent/${source.relative.slice('inbox/'.length)}`)
  if (existsSync(target.absolute))
    throw new PromoteError('exists', `${target.relative} already exists: the zones are never merged; rename the draft first`)

  mkdirSync(dirname(target.absolute), { recursive: true })
  try {
    linkSync(source.absolute, target.absolute) // fails if the target appeared meanwhile: no overwrite
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new PromoteError('exists', `${target.relative} already exists: the zones are never merged`)
    throw error
  }
  unlinkSync(source.absolute)

  const sha256 = createHash('sha256').update(text).digest('hex')
  const stats = lstatSync(target.absolute)
  try {
    await db.transaction(async (tx) => {
      await tx.delete(memNotes).where(eq(memNotes.path, source.relative))
      await upsertNoteRow(
        tx,
        readNoteRow({
          path: target.relative,
          space: 'permanent',
          absolute: target.absolute,
          size: stats.size,
          modifiedAt: new Date(Math.round(stats.mtimeMs)),
        }),
      )
      await recordAudit(tx, {
        actor,
        action: PROMOTE_AUDIT_ACTION,
        target: target.relative,
        details: { from: source.relative, to: target.relative, sha256 },
      })
    })
  }
  catch (error) {
    // Not recorded, not done: put the draft back where it was.
    try {
      linkSync(target.absolute, source.absolute)
      unlinkSync(target.absolute)
    }
    catch {
      /* the file stays in permanent/; the next index run records it */
    }
    throw error
  }
  return { from: source.relative, to: target.relative, sha256 }
}
