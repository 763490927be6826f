// The current memory (level 1, REFLEX_DIR) as hygiene and observability see it: the index
// file's entries and the thematic files they reference. A reference is a Markdown link to a
// relative `.md` file (`[deploy](deploy.md)`) or a wiki link (`[[deploy]]`) in an index line;
// a dead link references no existing file; an orphan is a thematic file no index line references.
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import { listReflexFiles, readReflexIndex, REFLEX_INDEX_FILE } from '../reflex'
import { splitFrontmatter } from '../vault/frontmatter'

const MARKDOWN_LINK = /\]\(\s*<?([^)\s>]+\.md)>?(?:#[^)\s]*)?\s*\)/gi
const WIKI_LINK = /\[\[([^[\]\n|#]+)(?:[#|][^[\]\n]*)?\]\]/g

export interface IndexReference { line: number, target: string, file: string | null }

export interface CurrentMemoryScan {
  indexExists: boolean
  indexLines: number
  files: Array<{ path: string, bytes: number, sha256: string, status: string | null, problem: string | null }>
  bytes: number
  references: IndexReference[]
  deadLinks: IndexReference[]
  orphans: string[]
}

/** The thematic file a reference designates (case-insensitive, `.md` optional), or null. */
export function resolveReference(target: string, files: string[]): string | null {
  const wanted = target.trim().replace(/^\.\//, '').replace(/\.md$/i, '').toLowerCase()
  return files.find(file => file.replace(/\.md$/i, '').toLowerCase() === wanted)
    ?? files.find(file => file.replace(/\.md$/i, '').split('/').pop()!.toLowerCase() === wanted)
    ?? null
}

export function referencesOf(text: string): string[] {
  const targets: string[] = []
  for (const match of text.matchAll(MARKDOWN_LINK)) {
    if (!/^[a-z]+:/i.test(match[1]!)) targets.push(decodeURI(match[1]!))
  }
  for (const match of text.matchAll(WIKI_LINK)) targets.push(match[1]!.trim())
  return targets
}

/** `status:` of a file's front matter (lower-case), or null (no front matter, unreadable YAML). */
export function frontmatterStatus(text: string): string | null {
  const { yaml } = splitFrontmatter(text)
  if (!yaml) return null
  const data = parseDocument(yaml).toJS() as unknown
  if (!data || typeof data !== 'object') return null
  const status = (data as Record<string, unknown>).status
  return typeof status === 'string' ? status.trim().toLowerCase() : null
}

export function scanCurrentMemory(reflexDir: string): CurrentMemoryScan {
  const index = readReflexIndex(reflexDir)
  const paths = listReflexFiles(reflexDir)
  const files = paths.map((path) => {
    const content = readFileSync(join(reflexDir, path))
    let status: string | null = null
    let problem: string | null = null
    try {
      status = frontmatterStatus(content.toString('utf8'))
    }
    catch (error) {
      // A front matter that does not parse marks nothing (the file is kept), but is reported.
      problem = error instanceof Error ? error.message : String(error)
    }
    return { path, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex'), status, problem }
  })
  const indexBytes = index.exists ? statSync(join(reflexDir, REFLEX_INDEX_FILE)).size : 0
  const references = index.entries.flatMap(entry =>
    referencesOf(entry.text).map(target => ({ line: entry.line, target, file: resolveReference(target, paths) })),
  )
  const referenced = new Set(references.map(r => r.file).filter(Boolean))
  return {
    indexExists: index.exists,
    indexLines: index.entries.length,
    files,
    bytes: indexBytes + files.reduce((sum, file) => sum + file.bytes, 0),
    references,
    deadLinks: references.filter(r => r.file === null),
    orphans: paths.filter(path => !referenced.has(path)),
  }
}
