// A note file → its YAML frontmatter, title, type, tags, body and outgoing links. A broken
// frontmatter (unterminated block, invalid YAML, not a mapping) is a NoteParseError naming
// the problem; the indexer reports it with the path and skips the note.
import { parseDocument } from 'yaml'
import { extractWikiLinks } from './links'

export class NoteParseError extends Error {
  readonly code = 'broken_frontmatter'
  constructor(message: string) {
    super(message)
    this.name = 'NoteParseError'
  }
}

export interface ParsedNote {
  frontmatter: Record<string, unknown>
  title: string
  type: string | null
  tags: string[]
  /** The client tenant (slug) the note is filed under: `tenant:` (or `client:`) in the front matter. */
  tenant: string | null
  /** The agent (codename) the note belongs to: `agent:` in the front matter. */
  agent: string | null
  body: string
  links: string[]
}

const OPENING = /^---[ \t]*\r?\n/
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m

/** JSON-safe copy (JSONB rejects NaN, Infinity, …). */
function jsonSafe(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' && !Number.isFinite(item) ? null : item))) as Record<string, unknown>
}

export function splitFrontmatter(text: string): { yaml: string | null, body: string } {
  const source = text.replace(/^\uFEFF/, '')
  const opening = OPENING.exec(source)
  if (!opening) return { yaml: null, body: source }
  const rest = source.slice(opening[0].length)
  const closing = CLOSING.exec(rest)
  if (!closing) throw new NoteParseError('frontmatter opened with --- is never closed')
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, '')
  return { yaml: rest.slice(0, closing.index), body }
}

export function parseFrontmatter(yaml: string): Record<string, unknown> {
  const document = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false })
  if (document.errors.length > 0) {
    const error = document.errors[0]!
    const line = error.linePos?.[0]?.line
    throw new NoteParseError(`invalid YAML frontmatter${line ? ` (line ${line + 1} of the file)` : ''}: ${error.message.split('\n')[0]}`)
  }
  const value: unknown = document.toJS({ maxAliasCount: 50 })
  if (value === null || value === undefined) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new NoteParseError('frontmatter is not a mapping of keys to values')
  return jsonSafe(value)
}

function normaliseTags(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : []
  const tags = raw.filter((tag): tag is string | number => typeof tag === 'string' || typeof tag === 'number')
    .map(tag => String(tag).trim().replace(/^#/, ''))
    .filter(Boolean)
  return [...new Set(tags)]
}

/** A slug-like front matter value (a tenant, an agent): trimmed, lower case, at most 64 characters; null otherwise. */
function slugValue(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const slug = value.trim().toLowerCase()
  return /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u.test(slug) ? slug : null
}

function firstHeading(body: string): string | null {
  const match = /^#\s+(.+?)\s*#*\s*$/m.exec(body)
  return match ? match[1]!.trim() : null
}

export function parseNote(text: string, fileName: string): ParsedNote {
  const { yaml, body } = splitFrontmatter(text)
  const frontmatter = yaml === null ? {} : parseFrontmatter(yaml)
  const declaredTitle = typeof frontmatter.title === 'string' && frontmatter.title.trim() ? frontmatter.title.trim() : null
  const type = typeof frontmatter.type === 'string' && frontmatter.type.trim() ? frontmatter.type.trim() : null
  return {
    frontmatter,
    title: declaredTitle ?? firstHeading(body) ?? fileName.replace(/\.md$/i, ''),
    type,
    tags: normaliseTags(frontmatter.tags),
    tenant: slugValue(frontmatter.tenant ?? frontmatter.client),
    agent: slugValue(frontmatter.agent),
    body,
    links: extractWikiLinks(body),
  }
}
