// The ai_routing table, listed and edited from the hub (audited). An 'auto' call does not
// read it: each process keeps the whole table (a few rows) and reads it again at most once
// a second (ROUTING_REFRESH_MS), at once after an edit made in the same process — so an edit
// reaches every process, hub and automates alike, within a second, with no restart and no
// round trip on the call's path. (LISTEN/NOTIFY was not chosen: the embedded database's
// socket does not carry notifications reliably.)
import { asc, eq, inArray } from 'drizzle-orm'
import type { Db } from '#db/client'
import { AI_ROUTING_GLOBAL, aiRouting, type AiRoutingParams, type AiRoutingRow } from '#db/schema/ai'
import { recordAudit } from '#db/audit'
import { CANONICAL_ROUTING, mergeRoute, type Route, type RouteKind, type RoutingLayer, type RoutingRows } from './routing'

function toLayer(row: AiRoutingRow): RoutingLayer {
  return {
    feature: row.feature,
    completeProvider: row.completeProvider,
    completeModel: row.completeModel,
    embedProvider: row.embedProvider,
    embedModel: row.embedModel,
    params: row.params ?? {},
  }
}

/** How long a process trusts its copy of the routing table. */
export const ROUTING_REFRESH_MS = 1000

/** Bumped by every edit made in this process: its copies are stale at once. */
let localEdits = 0

/** One process's copy of ai_routing (one per facade): whole-table reads, at most one per refreshMs, one at a time. */
export interface RoutingCache {
  table: (db: Db) => Promise<AiRoutingRow[]>
  /** Table reads made so far (the benchmark and the tests count them). */
  reads: () => number
}

export function createRoutingCache(options: { now?: () => number, refreshMs?: number } = {}): RoutingCache {
  const now = options.now ?? Date.now
  const refreshMs = options.refreshMs ?? ROUTING_REFRESH_MS
  let rows: AiRoutingRow[] | null = null
  let readAt = 0
  let readEdits = -1
  let reading: Promise<AiRoutingRow[]> | null = null
  let reads = 0
  return {
    table: async (db) => {
      if (rows && readEdits === localEdits && now() - readAt < refreshMs) return rows
      reading ??= (async () => {
        const edits = localEdits
        const startedAt = now()
        reads++
        const fresh = await db.select().from(aiRouting)
        rows = fresh
        readAt = startedAt
        readEdits = edits
        return fresh
      })().finally(() => {
        reading = null
      })
      return await reading
    },
    reads: () => reads,
  }
}

/** The rows that decide a feature's route, from the whole table. */
export function routingRowsOf(table: AiRoutingRow[], feature: string): RoutingRows {
  if (table.length === 0) return { useCanonical: true }
  const own = table.find(row => row.feature === feature)
  const global = table.find(row => row.feature === AI_ROUTING_GLOBAL)
  return { feature: own ? toLayer(own) : undefined, global: global ? toLayer(global) : undefined, useCanonical: false }
}

/** The rows that decide a feature's route, read now (no copy). */
export async function loadRoutingRows(db: Db, feature: string): Promise<RoutingRows> {
  const rows = await db.select().from(aiRouting).where(inArray(aiRouting.feature, [feature, AI_ROUTING_GLOBAL]))
  // Neither row: the table is either empty (canonical defaults) or routes other features only.
  return routingRowsOf(rows.length > 0 ? rows : await db.select().from(aiRouting).limit(1), feature)
}

/** Fail-soft: an unreachable database (or none) means canonical defaults. */
export async function resolveRoute(
  db: Db | undefined,
  kind: RouteKind,
  feature: string,
  onError?: (error: unknown) => void,
  cache?: RoutingCache,
): Promise<Route> {
  let rows: RoutingRows = { useCanonical: true }
  if (db) {
    try {
      rows = cache ? routingRowsOf(await cache.table(db), feature) : await loadRoutingRows(db, feature)
    }
    catch (error) {
      onError?.(error)
    }
  }
  return mergeRoute(kind, feature, rows)
}

export interface RoutingOverviewRow extends RoutingLayer {
  updatedAt: string | null
  updatedBy: string | null
  note: string
  /** What an 'auto' call for this feature uses today. */
  effective: { complete: Route, embed: Route }
}

export async function listRouting(db: Db): Promise<{ rows: RoutingOverviewRow[], canonical: boolean }> {
  const rows = await db.select().from(aiRouting).orderBy(asc(aiRouting.feature))
  const global = rows.find(row => row.feature === AI_ROUTING_GLOBAL)
  const canonical = rows.length === 0
  const source = canonical ? Object.values(CANONICAL_ROUTING).map(layer => ({ ...layer, updatedAt: null, updatedBy: null, note: 'canonical default (the table is empty)' })) : rows.map(row => ({ ...toLayer(row), updatedAt: row.updatedAt.toISOString(), updatedBy: row.updatedBy, note: row.note }))
  return {
    canonical,
    rows: source.map((layer) => {
      const routingRows: RoutingRows = canonical
        ? { useCanonical: true }
        : { feature: layer, global: global ? toLayer(global) : undefined, useCanonical: false }
      return { ...layer, effective: { complete: mergeRoute('complete', layer.feature, routingRows), embed: mergeRoute('embed', layer.feature, routingRows) } }
    }),
  }
}

export interface RoutingEdit {
  completeProvider?: string | null
  completeModel?: string | null
  embedProvider?: string | null
  embedModel?: string | null
  params?: AiRoutingParams
  note?: string
}

/** Creates or updates a feature's row, audited in hub_audit. */
export async function upsertRouting(db: Db, feature: string, edit: RoutingEdit, actor: string): Promise<AiRoutingRow> {
  return await db.transaction(async (tx) => {
    const values = { ...edit, updatedAt: new Date(), updatedBy: actor }
    const [row] = await tx.insert(aiRouting).values({ feature, ...values })
      .onConflictDoUpdate({ target: aiRouting.feature, set: values })
      .returning()
    await recordAudit(tx, { actor, action: 'ai_routing_updated', target: feature, details: { ...edit } })
    return row!
  }).finally(() => {
    localEdits++
  })
}

/** Removes a feature's row (it then inherits the global row); the global row cannot be removed. */
export async function deleteRouting(db: Db, feature: string, actor: string): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const removed = await tx.delete(aiRouting).where(eq(aiRouting.feature, feature)).returning({ feature: aiRouting.feature })
    if (removed.length === 0) return false
    await recordAudit(tx, { actor, action: 'ai_routing_deleted', target: feature })
    return true
  }).finally(() => {
    localEdits++
  })
}
