// The price table (ai_prices): USD per million tokens per model, seeded with list prices,
// edited in the hub (audited). The ledger prices each attempt from it at write time.
import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { aiPrices, type AiPrice } from '#db/schema/ai'
import { recordAudit } from '#db/audit'

export async function listPrices(db: Db): Promise<AiPrice[]> {
  return await db.select().from(aiPrices).orderBy(asc(aiPrices.provider), asc(aiPrices.model))
}

export interface PriceEdit { provider: string, model: string, inputUsdPerMtok: number, outputUsdPerMtok: number, note?: string }

export async function upsertPrice(db: Db, edit: PriceEdit, actor: string): Promise<AiPrice> {
  return await db.transaction(async (tx) => {
    const values = { inputUsdPerMtok: edit.inputUsdPerMtok, outputUsdPerMtok: edit.outputUsdPerMtok, note: edit.note ?? '', updatedAt: new Date(), updatedBy: actor }
    const [row] = await tx.insert(aiPrices).values({ provider: edit.provider, model: edit.model, ...values })
      .onConflictDoUpdate({ target: [aiPrices.provider, aiPrices.model], set: values })
      .returning()
    await recordAudit(tx, { actor, action: 'ai_price_updated', target: `${edit.provider}/${edit.model}`, details: { inputUsdPerMtok: edit.inputUsdPerMtok, outputUsdPerMtok: edit.outputUsdPerMtok } })
    return row!
  })
}

/**
 * Marks a priced model included in the studio's allowance (0 credit, keeps running past a
 * budget) or not; the ledger buckets the next calls by it. Founder only (it moves money), audited.
 */
export async function setIncluded(db: Db, provider: string, model: string, included: boolean, actor: string): Promise<AiPrice | null> {
  return await db.transaction(async (tx) => {
    const where = and(eq(aiPrices.provider, provider), eq(aiPrices.model, model))
    const [before] = await tx.select().from(aiPrices).where(where).for('update')
    if (!before) return null
    const [row] = await tx.update(aiPrices).set({ included, updatedAt: new Date(), updatedBy: actor }).where(where).returning()
    await recordAudit(tx, { actor, action: 'ai_price_included_updated', target: `${provider}/${model}`, details: { before: { included: before.included }, after: { included } } })
    return row!
  })
}
