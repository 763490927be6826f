// Spend by day, provider, feature and tenant, the CSV export, and the price table, on both
// databases.
import { randomUUID } from 'node:crypto'
import { beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { insertLedgerRows, type LedgerEntry } from '../../core/ledger'
import { lastDays, ledgerCsv, spendReport } from '../../core/spend'
import { listPrices, upsertPrice } from '../../core/prices'
import { monthPeriod } from '../../core/budgets'
import { usageReport } from '../../core/usage'
import { translator } from '#tests/helpers/catalogs'

const entry = (fields: Partial<LedgerEntry>): LedgerEntry => ({
  callId: randomUUID(), at: new Date('2026-11-02T10:00:00Z'), kind: 'completion', provider: 'mistral', via: 'api',
  model: 'mistral-small-latest', modelRequested: 'mistral-small-latest', feature: 'atlas_classify', tenant: null, actor: null,
  attempt: 1, outcome: 'ok', error: null, httpStatus: null, tokensIn: 1_000_000, tokensOut: 1_000_000, reportedCostUsd: null,
  durationMs: 120, failoverChain: [], ...fields,
})

describeOnBothDatabases('AI spend', (database) => {
  beforeAll(async () => {
    await insertLedgerRows(database().db, [
      // 2026-11-01: one mistral-small call ($0.1 + $0.3) for acme.
      entry({ at: new Date('2026-11-01T23:59:00Z'), tenant: 'acme' }),
      // 2026-11-02: a failed attempt, then anthropic haiku ($1 + $5) for acme; a reported CLI cost.
      entry({ outcome: 'failed', error: 'http_500', tokensIn: 0, tokensOut: 0, tenant: 'acme' }),
      entry({ provider: 'anthropic', model: 'claude-haiku-4-5', modelRequested: 'haiku', feature: 'atlas_reply_draft', kind: 'generation', tenant: 'acme', failoverChain: ['mistral:http_500'] }),
      entry({ provider: 'anthropic', via: 'agent-cli', model: 'claude-sonnet-4-6', feature: '=cmd|evil', tenant: 'beta, "quoted"', reportedCostUsd: 0.5, tokensIn: 10, tokensOut: 10 }),
      // Outside the period.
      entry({ at: new Date('2026-10-01T12:00:00Z'), tokensIn: 5_000_000 }),
    ])
  })

  it('sums by day (every day of the period), provider, feature and tenant', async () => {
    const report = await spendReport(database().db, lastDays(3, new Date('2026-11-02T18:00:00Z')))
    expect(report.from).toBe('2026-10-31T00:00:00.000Z')
    expect(report.to).toBe('2026-11-03T00:00:00.000Z')
    expect(report.total).toMatchObject({ calls: 3, failures: 1, costUsd: 6.9 })
    expect(report.byDay.map(d => [d.key, d.costUsd, d.calls])).toEqual([['2026-10-31', 0, 0], ['2026-11-01', 0.4, 1], ['2026-11-02', 6.5, 2]])
    expect(report.byDay[2]!.byProvider).toEqual({ anthropic: 6.5, mistral: 0 })
    // The chart can also plot calls (successful ones) or tokens: a free call still shows.
    expect(report.byDay[2]!.callsByProvider).toEqual({ anthropic: 2, mistral: 0 })
    expect(report.byDay[2]!.tokensByProvider).toEqual({ anthropic: 2_000_020, mistral: 0 })
    expect(report.byProvider.map(b => [b.key, b.costUsd, b.calls, b.failures])).toEqual([['anthropic', 6.5, 2, 0], ['mistral', 0.4, 1, 1]])
    expect(report.byFeature.map(b => [b.key, b.costUsd])).toEqual([['atlas_reply_draft', 6], ['=cmd|evil', 0.5], ['atlas_classify', 0.4]])
    expect(report.byTenant.map(b => [b.key, b.costUsd])).toEqual([['acme', 6.4], ['beta, "quoted"', 0.5]])
  })

  it('exports the ledger rows of the period as CSV, formulas neutralised', async () => {
    const csv = await ledgerCsv(database().db, lastDays(3, new Date('2026-11-02T18:00:00Z')))
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toBe('at,call_id,kind,provider,via,model,model_requested,feature,tenant,actor,attempt,outcome,error,http_status,tokens_in,tokens_out,cost_usd,cost_source,duration_ms,failover_chain')
    expect(lines).toHaveLength(5)
    expect(lines[1]).toMatch(/^2026-11-01T23:59:00\.000Z,/)
    expect(lines.some(line => line.includes(',\'=cmd|evil,"beta, ""quoted""",'))).toBe(true)
    expect(lines.some(line => line.endsWith(',mistral:http_500'))).toBe(true)
  })

  it('lists the seeded prices and records an edit in the audit log', async () => {
    const { db } = database()
    const prices = await listPrices(db)
    expect(prices.find(p => p.provider === 'anthropic' && p.model === 'claude-sonnet-4-6')).toMatchObject({ inputUsdPerMtok: 3, outputUsdPerMtok: 15 })
    expect(prices.find(p => p.provider === 'mistral' && p.model === 'mistral-embed')).toMatchObject({ inputUsdPerMtok: 0.1, outputUsdPerMtok: 0 })
    expect(prices.find(p => p.provider === 'offline')).toMatchObject({ model: '*', inputUsdPerMtok: 0 })
    const updated = await upsertPrice(db, { provider: 'mistral', model: 'mistral-small-latest', inputUsdPerMtok: 0.2, outputUsdPerMtok: 0.6, note: 'new list price' }, 'founder@example.test')
    expect(updated).toMatchObject({ inputUsdPerMtok: 0.2, outputUsdPerMtok: 0.6, updatedBy: 'founder@example.test' })
    const [audit] = await db.execute<{ action: string, target: string }>(sql`select action, target from hub_audit where action = 'ai_price_updated'`)
    expect(audit).toEqual({ action: 'ai_price_updated', target: 'mistral/mistral-small-latest' })
    await expect(upsertPrice(db, { provider: 'x', model: 'y', inputUsdPerMtok: -1, outputUsdPerMtok: 0 }, 'a')).rejects.toThrow()
  })

  it('names the calls made for no one with a catalog key whose English is the name sent', async () => {
    // A month of its own, so the sums above stay as they are.
    await insertLedgerRows(database().db, [entry({ at: new Date('2026-08-10T10:00:00Z') })])
    const say = translator('en')
    const spend = await spendReport(database().db, lastDays(1, new Date('2026-08-10T18:00:00Z')))
    expect(spend.byTenant.map(b => [b.key, b.labelKey])).toEqual([['(no tenant)', 'ai.spend.noTenant']])
    expect(say(spend.byTenant[0]!.labelKey!)).toBe(spend.byTenant[0]!.key)
    const usage = await usageReport(database().db, monthPeriod('2026-08'))
    const named = (rows: typeof usage.byPerson) => rows.map(row => [row.label, row.labelKey && say(row.labelKey)])
    const unnamed = [usage.byPerson, usage.byAgent, usage.byClient].map(named)
    expect(unnamed).toEqual([[['(no person)', '(no person)']], [['(no agent)', '(no agent)']], [['(no client)', '(no client)']]])
    expect(usage.byModel.every(row => row.labelKey === undefined)).toBe(true)
  })
})
