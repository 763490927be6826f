// Level 1, the reflex memory: an index file listing every active entry, one per line of at
// most 200 characters, and thematic files holding the details. A longer line is refused
// with its line number (when reading the index and when adding an entry).
import { appendFileSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'

export const REFLEX_INDEX_FILE = 'MEMORY.md'
export const REFLEX_LINE_MAX = 200

export interface ReflexEntry {
  line: number
  text: string
}

export interface ReflexRefusal {
  line: number
  length: number
  problem: string
}

export interface ReflexIndex {
  exists: boolean
  entries: ReflexEntry[]
  refused: ReflexRefusal[]
}

export class ReflexEntryError extends Error {
  readonly code = 'bad_reflex_entry'
  constructor(message: string) {
    super(message)
    this.name = 'ReflexEntryError'
  }
}

/** Entries are the non-empty lines that are not headings; a line over 200 characters is refused. */
export function parseReflexIndex(text: string): Omit<ReflexIndex, 'exists'> {
  const entries: ReflexEntry[] = []
  const refused: ReflexRefusal[] = []
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1
    const length = [...raw].length
    if (length > REFLEX_LINE_MAX) {
      refused.push({ line, length, problem: `line ${line} is ${length} characters long (at most ${REFLEX_LINE_MAX}): refused` })
      return
    }
    const text = raw.trim()
    if (!text || text.startsWith('#')) return
    entries.push({ line, text })
  })
  return { entries, refused }
}

export function readReflexIndex(reflexDir: string): ReflexIndex {
  let text: string
  try {
    text = readFileSync(join(reflexDir, REFLEX_INDEX_FILE), 'utf8')
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, entries: [], refused: [] }
    throw error
  }
  return { exists: true, ...parseReflexIndex(text) }
}

/** Appends one entry to the index; returns its line number. */
export function addReflexEntry(reflexDir: string, entry: string): number {
  if (/[\r\n]/.test(entry)) throw new ReflexEntryError('a reflex entry is one line: remove the line breaks')
  const text = entry.trim()
  if (!text) throw new ReflexEntryError('empty reflex entry')
  mkdirSync(reflexDir, { recursive: true })
  const path = join(reflexDir, REFLEX_INDEX_FILE)
  let current = ''
  try {
    current = readFileSync(path, 'utf8')
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const lines = current === '' ? [] : current.replace(/\r?\n$/, '').split(/\r?\n/)
  const line = lines.length + 1
  const length = [...text].length
  if (length > REFLEX_LINE_MAX) throw new ReflexEntryError(`line ${line} would be ${length} characters long (at most ${REFLEX_LINE_MAX}): refused`)
  appendFileSync(path, `${current !== '' && !current.endsWith('\n') ? '\n' : ''}${text}\n`)
  return line
}

/** The thematic files (markdown, excluding the index), relative paths; symbolic links skipped. */
export function listReflexFiles(reflexDir: string): string[] {
  const files: string[] = []
  const walk = (folder: string, depth: number) => {
    if (depth > 8) return
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.isSymbolicLink()) continue
      const absolute = join(folder, entry.name)
      if (entry.isDirectory()) walk(absolute, depth + 1)
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
        const path = relative(reflexDir, absolute).split(sep).join('/')
        if (path !== REFLEX_INDEX_FILE) files.push(path)
      }
    }
  }
  walk(reflexDir, 0)
  return files.sort()
}

/** Reads one thematic file by its relative path (no symbolic link, nothing outside the folder). */
export function readReflexFile(reflexDir: string, path: string): string {
  if (!/^[^/\\\0]+(?:\/[^/\\\0]+)*\.md$/i.test(path) || path.split('/').some(part => part === '..' || part === '.')) {
    throw new ReflexEntryError(`${path}: not a reflex memory file path`)
  }
  let current = reflexDir
  for (const part of path.split('/')) {
    current = join(current, part)
    if (lstatSync(current).isSymbolicLink()) throw new ReflexEntryError(`${path}: symbolic links are refused`)
  }
  return readFileSync(current, 'utf8')
}
