// The command palette's search over agents, Atlas messages and vault notes: a few hits of
// each, reusing each domain's own list query (same filters as its page).
import { asc, ilike, or, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agents } from '#db/schema/index'
import { listInbox } from '#layers/atlas/core/queries'
import { listNotes } from '#layers/memory/core/vault/notes'
import { SearchResults, type SearchHit } from '#shared/search'

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, match => `\\${match}`)}%`
}

async function searchAgents(db: Db, q: string, limit: number): Promise<SearchHit[]> {
  const pattern = likePattern(q)
  const rows = await db
    .select({ codename: agents.codename, nickname: agents.nickname, role: agents.role, roleEn: agents.roleEn, active: agents.active })
    .from(agents)
    .where(or(ilike(agents.codename, pattern), ilike(agents.nickname, pattern), ilike(agents.roleEn, pattern), ilike(agents.role, pattern)))
    // Exact names first, then active agents, then by nickname.
    .orderBy(
      sql`(lower(${agents.nickname}) = lower(${q}) or ${agents.codename} = lower(${q})) desc`,
      sql`${agents.active} desc`,
      asc(agents.nickname),
    )
    .limit(limit)
  return rows.map(row => ({
    label: row.nickname,
    description: `${row.roleEn || row.role} · ${row.codename}${row.active ? '' : ' · inactive'}`,
    to: `/hub/agents/${row.codename}`,
  }))
}

async function searchMessages(db: Db, q: string, limit: number): Promise<SearchHit[]> {
  const { items } = await listInbox(db, { q, pageSize: limit })
  return items.map(item => ({
    label: item.subject || '(no subject)',
    description: `#${item.messageId} · ${item.fromName || item.fromAddress || 'unknown sender'} · ${item.status.replace(/_/g, ' ')}`,
    to: `/hub/atlas/${item.messageId}`,
  }))
}

async function searchNotes(db: Db, q: string, limit: number): Promise<SearchHit[]> {
  const notes = await listNotes(db, { q, limit })
  return notes.map(note => ({
    label: note.title,
    description: `${note.space} · ${note.path}`,
    to: `/hub/memory/vault?note=${encodeURIComponent(note.path)}`,
  }))
}

export async function searchHub(db: Db, q: string, limit: number): Promise<SearchResults> {
  const [agentHits, messages, notes] = await Promise.all([
    searchAgents(db, q, limit),
    searchMessages(db, q, limit),
    searchNotes(db, q, limit),
  ])
  return SearchResults.parse({ agents: agentHits, messages, notes })
}
