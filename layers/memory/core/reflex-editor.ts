// The reflex memory as a person edits it in the hub: the whole MEMORY.md index at once, one
// entry per line of at most 200 characters. A longer line refuses the whole save, naming the
// line (nothing is written); a save based on an older copy than the one on disk is refused
// too (someone else saved meanwhile). The file is replaced atomically and the save audited.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { parseReflexIndex, REFLEX_INDEX_FILE, REFLEX_LINE_MAX, type ReflexRefusal } from './reflex'

/** The whole index's size bound: far above any sensible reflex memory, far below a body limit. */
export const REFLEX_TEXT_MAX = 200_000
export const REFLEX_SAVED_ACTION = 'memory.reflex_saved'

export class ReflexEditError extends Error {
  constructor(
    readonly code: 'reflex_line_too_long' | 'reflex_changed_meanwhile' | 'reflex_too_large' | 'no_actor',
    message: string,
    readonly details: { line?: number, length?: number, refused?: ReflexRefusal[], sha256?: string } = {},
  ) {
    super(message)
    this.name = 'ReflexEditError'
  }
}

export interface ReflexSource {
  exists: boolean
  text: string
  /** SHA-256 of the file as read: send it back with a save to detect a concurrent edit. */
  sha256: string
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

export function readReflexSource(reflexDir: string): ReflexSource {
  try {
    const text = readFileSync(join(reflexDir, REFLEX_INDEX_FILE), 'utf8')
    return { exists: true, text, sha256: sha(text) }
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, text: '', sha256: sha('') }
    throw error
  }
}

/** Every line over the limit, by number; an empty list means the text can be saved. */
export function reflexRefusals(text: string): ReflexRefusal[] {
  return parseReflexIndex(text).refused
}

export interface ReflexSaved {
  sha256: string
  entries: number
  lines: number
}

export async function saveReflexIndex(
  deps: { db: Db, reflexDir: string },
  request: { text: string, actor: string, expectedSha256?: string },
): Promise<ReflexSaved> {
  const actor = request.actor?.trim()
  if (!actor) throw new ReflexEditError('no_actor', 'an edit of the reflex memory names the person making it')
  // One trailing newline, Unix line ends: the file the agents read stays clean.
  const text = request.text.replace(/\r\n?/g, '\n').replace(/\n*$/, '\n').replace(/^\n$/, '')
  if (text.length > REFLEX_TEXT_MAX)
    throw new ReflexEditError(
      'reflex_too_large',
      `the reflex memory is ${text.length} characters long (at most ${REFLEX_TEXT_MAX}): move details to thematic files`,
    )
  const refused = reflexRefusals(text)
  if (refused.length > 0) {
    const first = refused[0]!
    throw new ReflexEditError(
      'reflex_line_too_long',
      `line ${first.line} is ${first.length} characters long (at most ${REFLEX_LINE_MAX}): nothing was saved`,
      { line: first.line, length: first.length, refused },
    )
  }
  const current = readReflexSource(deps.reflexDir)
  if (request.expectedSha256 && request.expectedSha256 !== current.sha256) {
    throw new ReflexEditError('reflex_changed_meanwhile', 'MEMORY.md changed since it was opened: reload it and make the edit again', {
      sha256: current.sha256,
    })
  }
  mkdirSync(deps.reflexDir, { recursive: true })
  const path = join(deps.reflexDir, REFLEX_INDEX_FILE)
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`
  writeFileSync(temporary, text)
  const { entries } = parseReflexIndex(text)
  const saved = { sha256: sha(text), entries: entries.length, lines: text === '' ? 0 : text.split('\n').length - 1 }
  try {
    // The audit first, then the file: a save that cannot be recorded does not happen.
    await recordAudit(deps.db, {
      actor,
      action: REFLEX_SAVED_ACTION,
      target: REFLEX_INDEX_FILE,
      details: { before: current.sha256, after: saved.sha256, entries: saved.entries, lines: saved.lines },
    })
    renameSync(temporary, path)
  }
  catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
  return saved
}
