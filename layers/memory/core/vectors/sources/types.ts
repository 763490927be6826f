// A source of the vector index: loads its documents (id, title, text) for one source type.
import type { Db } from '#db/client'
import type { SourceType } from '../../sources'

export interface SourceDocument {
  sourceId: string
  title: string
  /** The full text; the sync truncates it to one chunk. */
  text: string
  /** The agent the document belongs to (scars, iterations), for agent-first recall. */
  agent?: string | null
  /** The client tenant the document belongs to (a note's front matter), for recall's tenant filter. */
  tenant?: string | null
  metadata?: Record<string, unknown>
}

export interface SourceContext {
  db: Db
  reflexDir: string
}

/** A source may be unavailable (its table not created yet): it is then skipped, with the reason. */
export type SourceLoad = { documents: SourceDocument[] } | { skipped: string }

export interface SourceAdapter {
  type: SourceType
  load: (ctx: SourceContext) => Promise<SourceLoad>
}
