// Knowledge-base notes (from the note indexer's mem_notes) and the reflex memory's
// thematic files (level 1, the index file excluded).
import { memNotes } from '#db/schema/mem'
import { listReflexFiles, readReflexFile } from '../../reflex'
import { isSourceType, SCOPE_ALIASES, type SourceType } from '../../sources'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

/** The recall scope a note's front matter type puts it in too (`type: doctrine` → doctrine), if any. */
export function noteScope(type: string | null): SourceType | null {
  const name = type?.trim().toLowerCase() ?? ''
  if (!name || name === 'note') return null
  return isSourceType(name) ? name : SCOPE_ALIASES[name] ?? null
}

/**
 * The front matter's type, tenant and agent are part of the embedded text: a change of any
 * of them changes the fingerprint, so the sync re-files the note (and its columns) at once.
 */
function filing(row: { type: string | null, tenant: string | null, agent: string | null }): string {
  return [row.type && `Type: ${row.type}`, row.tenant && `Tenant: ${row.tenant}`, row.agent && `Agent: ${row.agent}`].filter(Boolean).join(' · ')
}

export const noteSource: SourceAdapter = {
  type: 'note',
  load: async ({ db }) => ({
    documents: (await db.select().from(memNotes)).map(row => ({
      sourceId: row.path,
      title: row.title,
      text: joinParts(row.title, filing(row), row.tags.length ? `Tags: ${row.tags.join(', ')}` : '', row.body),
      agent: row.agent,
      tenant: row.tenant,
      metadata: { space: row.space, type: row.type, scope: noteScope(row.type), tags: row.tags },
    })),
  }),
}

export const reflexSource: SourceAdapter = {
  type: 'reflex',
  load: async ({ reflexDir }) => ({
    documents: listReflexFiles(reflexDir).map((path) => {
      const text = readReflexFile(reflexDir, path)
      const heading = /^#\s+(.+)$/m.exec(text)?.[1]?.trim()
      return { sourceId: path, title: heading ?? path.replace(/\.md$/i, ''), text }
    }),
  }),
}
