// One dispatcher cycle over the hub's events (seed 003 §12.6): each source is read after its
// stored cursor, a page at a time in (time, id) order, the page's events fired, then the
// cursor moved past the page — so a burst is read whole, each event once, and a dispatcher
// stopped mid-page reads that page again on restart, its already-claimed fires coming back as
// duplicates (the unique key on agent_trigger_fires), never as second runs.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentEventCursors } from '#db/schema/custom-agents'
import { dispatchEvents, loadTriggerIndex, type DispatchDeps, type FireResult } from './dispatcher'
import { EVENT_SOURCES, readSource, type EventSource, type SourceCursor } from './events'

export interface EventCycleOptions {
  /** Rows read from one source at a time. */
  pageSize?: number
  /**
   * Rows younger than this wait for the next cycle: a row's time is its transaction's start,
   * so a transaction still open could commit a row behind a cursor that already passed it.
   */
  settleMs?: number
  /** How far back a source with no cursor yet starts (a new hub does not replay its history). */
  firstWindowMs?: number
  /** Pages read in one cycle at most; the rest waits for the next cycle, its cursor kept. */
  maxPages?: number
}

export interface EventCycleReport {
  events: number
  pages: number
  /** Every source read up to the settle horizon. */
  drained: boolean
  results: FireResult[]
}

export const EVENT_PAGE_SIZE = 500
export const EVENT_SETTLE_MS = 10_000
export const FIRST_WINDOW_MS = 10 * 60_000

export async function readCursors(db: Db): Promise<Map<EventSource, SourceCursor>> {
  const rows = await db.select().from(agentEventCursors)
  return new Map(rows.map(row => [row.source as EventSource, { at: row.at, id: row.lastId }]))
}

async function saveCursor(db: Db, source: EventSource, cursor: SourceCursor): Promise<void> {
  await db.insert(agentEventCursors).values({ source, at: cursor.at, lastId: cursor.id })
    .onConflictDoUpdate({ target: agentEventCursors.source, set: { at: cursor.at, lastId: cursor.id, updatedAt: sql`now()` } })
}

/** Reads every source from its cursor until drained (or maxPages), firing each page's events. */
export async function dispatchEventCycle(deps: DispatchDeps, options: EventCycleOptions = {}): Promise<EventCycleReport> {
  const now = (deps.now ?? (() => new Date()))()
  const pageSize = options.pageSize ?? EVENT_PAGE_SIZE
  const horizon = new Date(now.getTime() - (options.settleMs ?? EVENT_SETTLE_MS))
  const start: SourceCursor = { at: new Date(now.getTime() - (options.firstWindowMs ?? FIRST_WINDOW_MS)).toISOString(), id: 0 }
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY
  const index = await loadTriggerIndex(deps.db)
  const cursors = await readCursors(deps.db)
  // A source's first cycle fixes where it starts: a later outage does not slide it forward.
  for (const source of EVENT_SOURCES) {
    if (cursors.has(source)) continue
    await saveCursor(deps.db, source, start)
    cursors.set(source, start)
  }
  const pending = new Set<EventSource>(EVENT_SOURCES)
  const report: EventCycleReport = { events: 0, pages: 0, drained: false, results: [] }
  while (pending.size > 0 && report.pages < maxPages) {
    for (const source of [...pending]) {
      if (report.pages >= maxPages) break
      deps.signal?.throwIfAborted()
      const page = await readSource(deps.db, source, cursors.get(source)!, { limit: pageSize, horizon })
      if (page.rows < pageSize) pending.delete(source)
      if (page.rows === 0) continue
      // Throws when stopped mid-page: the cursor stays before the page, which is read again.
      report.results.push(...await dispatchEvents(deps, page.events, index))
      await saveCursor(deps.db, source, page.cursor)
      cursors.set(source, page.cursor)
      report.events += page.events.length
      report.pages++
    }
  }
  report.drained = pending.size === 0
  return report
}
