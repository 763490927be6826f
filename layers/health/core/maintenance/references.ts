// The reference syntax of the documentation chapters, and the code tree's units.
// A chapter references code only inside inline code spans:
//   `src/foo.ts`        a file of DOCS_CODE_DIR (a relative path with a code extension)
//   `src/foo.ts#bar`    the exported symbol bar of that file
//   `bar()`             an exported function (or any exported symbol) named bar, in any file
// A unit is a code file; it is covered when a chapter references it or one of its symbols.
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

export const CODE_EXTENSIONS = ['ts', 'tsx', 'js', 'mjs', 'cjs', 'vue', 'py', 'go', 'rs', 'sh', 'sql']
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.output', '.nuxt', 'dist'])
const EXT = CODE_EXTENSIONS.join('|')
const FILE_REF = new RegExp(`^((?:[\\w.@-]+/)*[\\w.@-]+\\.(?:${EXT}))(?:#([A-Za-z_$][\\w$]*))?$`)
const CALL_REF = /^([A-Za-z_$][\w$]*)\(\)$/
const EXPORTED = /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm

export type Reference
  = | { raw: string, kind: 'file', path: string }
    | { raw: string, kind: 'symbol', path: string, symbol: string }
    | { raw: string, kind: 'call', symbol: string }

export interface CodeTree {
  /** Relative path (with /) → its exported symbols. */
  files: Map<string, Set<string>>
  mtimes: Map<string, number>
}

/** Inline code spans outside fenced blocks, parsed as references; other spans are prose. */
export function parseReferences(markdown: string): Reference[] {
  const refs: Reference[] = []
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      continue
    }
    if (fenced) continue
    for (const match of line.matchAll(/`([^`\n]+)`/g)) {
      const raw = match[1]!.trim()
      const file = FILE_REF.exec(raw)
      if (file) {
        refs.push(file[2] ? { raw, kind: 'symbol', path: file[1]!, symbol: file[2] } : { raw, kind: 'file', path: file[1]! })
        continue
      }
      const call = CALL_REF.exec(raw)
      if (call) refs.push({ raw, kind: 'call', symbol: call[1]! })
    }
  }
  return refs
}

export function exportedSymbols(source: string): Set<string> {
  return new Set([...source.matchAll(EXPORTED)].map(m => m[1]!))
}

async function walk(root: string, dir: string, visit: (path: string) => Promise<void>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true })
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) await walk(root, join(dir, entry.name), visit)
    }
    else if (entry.isFile()) await visit(join(dir, entry.name))
  }
}

export async function readCodeTree(root: string): Promise<CodeTree> {
  const files = new Map<string, Set<string>>()
  const mtimes = new Map<string, number>()
  const extension = new RegExp(`\\.(?:${EXT})$`)
  await walk(root, root, async (path) => {
    if (!extension.test(path)) return
    const rel = relative(root, path).split(sep).join('/')
    files.set(rel, exportedSymbols(await readFile(path, 'utf8')))
    mtimes.set(rel, (await stat(path)).mtimeMs)
  })
  return { files, mtimes }
}

/** The Markdown chapters of DOCS_DIR: relative path → text and modification time. */
export async function readChapters(root: string): Promise<Map<string, { text: string, mtimeMs: number }>> {
  const chapters = new Map<string, { text: string, mtimeMs: number }>()
  await walk(root, root, async (path) => {
    if (!path.endsWith('.md')) return
    chapters.set(relative(root, path).split(sep).join('/'), { text: await readFile(path, 'utf8'), mtimeMs: (await stat(path)).mtimeMs })
  })
  return chapters
}

/** The files a reference resolves to (empty: a dead reference). */
export function resolveReference(ref: Reference, tree: CodeTree): string[] {
  if (ref.kind === 'file') return tree.files.has(ref.path) ? [ref.path] : []
  if (ref.kind === 'symbol') return tree.files.get(ref.path)?.has(ref.symbol) ? [ref.path] : []
  return [...tree.files].filter(([, symbols]) => symbols.has(ref.symbol)).map(([path]) => path)
}
