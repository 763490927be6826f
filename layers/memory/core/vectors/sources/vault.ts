// Knowledge-base notes (from the note indexer's mem_notes) and the reflex memory's
// thematic files (level 1, the index file excluded).
import { memNotes } from '../../../../../db/schema/mem'
import { listReflexFiles, readReflexFile } from '../../reflex'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

export const noteSource: SourceAdapter = {
  type: 'note',
  load: async ({ db }) => ({
    documents: (await db.select().from(memNotes)).map(row => ({
      sourceId: row.path,
      title: row.title,
      text: joinParts(row.title, row.tags.length ? `Tags: ${row.tags.join(', ')}` : '', row.body),
      metadata: { space: row.space, type: row.type },
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
