// The ai_routing table: read at every 'auto' call (so an edit applies to the next call,
// in every process, with no restart), listed and edited from the hub (audited).
import { asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../../db/client'
import { AI_ROUTING_GLOBAL, aiRouting, type AiRoutingParams, type AiRoutingRow } from '../../../db/schema/ai'
import { recordAudit } from '../../../db/audit'
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

/** The rows that decide a feature's route; fail-soft: an unreachable database means canonical defaults. */
export async function loadRoutingRows(db: Db, feature: string): Promise<RoutingRows> {
  const rows = await db.select().from(aiRouting).where(inArray(aiRouting.feature, [feature, AI_ROUTING_GLOBAL]))
  if (rows.length === 0) {
    const any = await db.select({ one: sql<number>`1` }).from(aiRouting).limit(1)
    return { useCanonical: any.length === 0 }
  }
  const own = rows.find(row => row.feature === feature)
  const global = rows.find(row => row.feature === AI_ROUTING_GLOBAL)
  return { feature: own ? toLayer(own) : undefined, global: global ? toLayer(global) : undefined, useCanonical: false }
}

export async function resolveRoute(db: Db | undefined, kind: RouteKind, feature: string, onError?: (error: unknown) => void): Promise<Route> {
  let rows: RoutingRows = { useCanonical: true }
  if (db) {
    try {
      rows = await loadRoutingRows(db, feature)
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
  })
}

/** Removes a feature's row (it then inherits the global row); the global row cannot be removed. */
export async function deleteRouting(db: Db, feature: string, actor: string): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const removed = await tx.delete(aiRouting).where(eq(aiRouting.feature, feature)).returning({ feature: aiRouting.feature })
    if (removed.length === 0) return false
    await recordAudit(tx, { actor, action: 'ai_routing_deleted', target: feature })
    return true
  })
}
