// Per-tenant provider selection: an active tenant's clients.config.ai { provider, model }.
// Inactive tenants are never read; any problem (unknown tenant, odd JSON, database down)
// means "no tenant preference" and the caller's default applies (the seed's silent fallback).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { COMPLETION_PROVIDERS, type ProviderId } from './catalog'

export interface TenantAi { provider: ProviderId, model?: string }

/** The tenant (slug or id) is looked up among active clients only. */
export async function resolveTenantAi(db: Db | undefined, tenant: string, onError?: (error: unknown) => void): Promise<TenantAi | null> {
  if (!db || !tenant) return null
  try {
    const rows = await db.execute<{ ai: unknown }>(sql`
      select config -> 'ai' as ai from clients
      where active and (slug = ${tenant} or id::text = ${tenant})
      limit 1`)
    const ai = rows[0]?.ai
    if (!ai || typeof ai !== 'object' || Array.isArray(ai)) return null
    const { provider: named, model: rawModel } = ai as { provider?: unknown, model?: unknown }
    const model = typeof rawModel === 'string' && rawModel.trim() ? rawModel.trim() : undefined
    // The seed: provider absent → mistral; model absent → the provider's default.
    const provider = named === undefined || named === null || named === '' ? (model ? 'mistral' : undefined) : named
    if (typeof provider !== 'string' || !COMPLETION_PROVIDERS.includes(provider as ProviderId)) return null
    return { provider: provider as ProviderId, model }
  }
  catch (error) {
    onError?.(error)
    return null
  }
}
