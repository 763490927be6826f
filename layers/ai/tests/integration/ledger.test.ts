// The consumption ledger on both databases: one row per attempt, success and failure, with
// the model the response names, tokens, the cost from the price table (or the one the
// agent CLI reported), duration, outcome and failover chain; a ledger that cannot write
// never fails or blocks the call; no planted key ever lands in a row.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness, PLANTED_KEYS, plantedKeyFragments } from '../fakes/harness'
import { createAiFacade } from '../../core/facade'
import { createDbLedger, type LedgerEntry } from '../../core/ledger'
import { upsertPrice } from '../../core/prices'
import type { ProcessRunner } from '../../core/clients/process-runner'

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet({
    mistral: KEYS.MISTRAL_API_KEY,
    anthropic: KEYS.ANTHROPIC_API_KEY,
    openai: KEYS.OPENAI_API_KEY,
    voyage: KEYS.VOYAGE_API_KEY,
  })
})
afterAll(async () => fleet.close())
beforeEach(() => fleet.reset())

type LedgerRow = {
  call_id: string
  kind: string
  provider: string
  via: string
  model: string
  model_requested: string
  feature: string
  tenant: string | null
  actor: string | null
  attempt: number
  outcome: string
  error: string | null
  http_status: number | null
  tokens_in: number
  tokens_out: number
  cost_usd: string
  cost_source: string
  duration_ms: number
  failover_chain: string[]
}

describeOnBothDatabases('AI consumption ledger', (database) => {
  const rows = async (feature: string) => await database().db.execute<LedgerRow>(sql`select * from ai_consumption where feature = ${feature} order by id`)

  it('writes one row per attempt, failures included, priced from ai_prices', async () => {
    fleet.mistral.script({ status: 503, body: { message: 'unavailable' } }, { status: 503, body: { message: 'unavailable' } }, { status: 503, body: { message: 'unavailable' } })
    const { ai } = harness(fleet.env(KEYS), { db: database().db })
    const result = await ai.generateContent({ prompt: 'p', feature: 'ledger_generate', tenant: 'acme', actor: 'operator@example.test' })
    expect(result.provider).toBe('anthropic')
    await ai.flush()
    const written = await rows('ledger_generate')
    expect(written.map(r => [r.provider, r.attempt, r.outcome, r.error, r.http_status])).toEqual([
      ['mistral', 1, 'failed', 'http_503', 503], ['mistral', 2, 'failed', 'http_503', 503], ['mistral', 3, 'failed', 'http_503', 503], ['anthropic', 1, 'ok', null, null],
    ])
    expect(new Set(written.map(r => r.call_id)).size).toBe(1)
    const ok = written[3]!
    expect(ok).toMatchObject({ kind: 'generation', via: 'api', model: 'claude-sonnet-4-6', model_requested: 'claude-sonnet-4-6', tenant: 'acme', actor: 'operator@example.test', tokens_in: 20, tokens_out: 10, cost_source: 'price_table', failover_chain: ['mistral:http_503'] })
    // claude-sonnet-4-6: $3 in, $15 out per million tokens.
    expect(Number(ok.cost_usd)).toBeCloseTo((20 * 3 + 10 * 15) / 1e6, 10)
    expect(written[0]).toMatchObject({ model: 'mistral-large-latest', tokens_in: 0, cost_usd: expect.anything(), failover_chain: [] })
    expect(Number(written[0]!.cost_usd)).toBe(0)
  })

  it('prices the model the response names by its longest known prefix, and an edited price applies to the next rows', async () => {
    const { db } = database()
    const { ai } = harness(fleet.env(KEYS), { db })
    await ai.generateContent({ prompt: 'p', feature: 'ledger_prefix', provider: 'openai' })
    await ai.flush()
    const [first] = await rows('ledger_prefix')
    expect(first).toMatchObject({ model: 'gpt-4o-2024-08-06', model_requested: 'gpt-4o', cost_source: 'price_table' })
    expect(Number(first!.cost_usd)).toBeCloseTo((12 * 2.5 + 7 * 10) / 1e6, 10)

    await upsertPrice(db, { provider: 'openai', model: 'gpt-4o-2024-08-06', inputUsdPerMtok: 1000, outputUsdPerMtok: 0 }, 'founder@example.test')
    await ai.generateContent({ prompt: 'p', feature: 'ledger_prefix', provider: 'openai' })
    await ai.flush()
    const second = (await rows('ledger_prefix'))[1]!
    expect(Number(second.cost_usd)).toBeCloseTo(12 * 1000 / 1e6, 10)
  })

  it('records embeddings, the offline provider at no cost, and the agent CLI\'s reported cost', async () => {
    const { db } = database()
    const embedding = harness(fleet.env(KEYS), { db, embedThrottleMs: 0 })
    await embedding.ai.embed({ feature: 'ledger_embed', texts: Array.from({ length: 60 }, (_, i) => `t${i}`) })
    await embedding.ai.flush()
    const embedded = await rows('ledger_embed')
    expect(embedded.map(r => [r.kind, r.provider, r.model, r.tokens_in, r.tokens_out])).toEqual([['embedding', 'mistral', 'mistral-embed', 150, 0], ['embedding', 'mistral', 'mistral-embed', 30, 0]])
    expect(Number(embedded[0]!.cost_usd)).toBeCloseTo(150 * 0.1 / 1e6, 12)

    const offline = harness({}, { db })
    await offline.ai.complete({ feature: 'ledger_offline', prompt: 'p', json: true })
    await offline.ai.flush()
    expect((await rows('ledger_offline'))[0]).toMatchObject({ provider: 'offline', via: 'local', model: 'offline-rules-v1', cost_source: 'price_table', tokens_in: 0 })

    const runner: ProcessRunner = async () => ({ exitCode: 0, signal: null, timedOut: false, stderr: '', stdout: JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok', total_cost_usd: 0.0123, usage: { input_tokens: 100, output_tokens: 50 }, modelUsage: { 'claude-haiku-4-5': {} } }) })
    const cli = harness({ AI_AGENT_CLI: '1' }, { db, runner })
    await cli.ai.complete({ feature: 'ledger_cli', prompt: 'p' })
    await cli.ai.flush()
    expect((await rows('ledger_cli'))[0]).toMatchObject({ provider: 'anthropic', via: 'agent-cli', model: 'claude-haiku-4-5', cost_source: 'reported', failover_chain: [] })
    expect(Number((await rows('ledger_cli'))[0]!.cost_usd)).toBeCloseTo(0.0123, 8)
  })

  it('writes a lone call at once, a burst of calls in one INSERT after the gap, and flush does not wait for the gap', async () => {
    let writes = 0
    const ledger = createDbLedger(async () => {
      writes++
      return database().db
    }, { writeGapMs: 60_000 })
    const entry = (feature: string, attempt: number): LedgerEntry => ({
      callId: '00000000-0000-4000-8000-000000000001', at: new Date(), kind: 'completion', provider: 'mistral', via: 'api', model: 'mistral-small-latest',
      modelRequested: 'mistral-small-latest', feature, tenant: null, actor: null, attempt, outcome: 'ok', error: null, httpStatus: null,
      tokensIn: 1, tokensOut: 1, reportedCostUsd: null, durationMs: 1, failoverChain: [],
    })
    const tick = () => new Promise(resolve => setImmediate(resolve))
    const until = async (check: () => Promise<boolean>) => {
      for (const started = Date.now(); Date.now() - started < 10_000; await new Promise(resolve => setTimeout(resolve, 5)))
        if (await check()) return true
      return false
    }

    ledger.record(entry('ledger_lone', 1))
    expect(await until(async () => (await rows('ledger_lone')).length === 1)).toBe(true)
    expect(writes).toBe(1)

    // Sequential calls, each recorded after the previous one's write could have started.
    for (let attempt = 1; attempt <= 20; attempt++) {
      ledger.record(entry('ledger_burst', attempt))
      await tick()
    }
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(await rows('ledger_burst')).toHaveLength(0)
    const started = Date.now()
    await ledger.flush()
    // The gap is a minute: a flush that waited for it would take that long.
    expect(Date.now() - started).toBeLessThan(30_000)
    expect((await rows('ledger_burst')).map(row => row.attempt)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1))
    expect(writes).toBe(2)
  })

  it('never fails nor blocks the call when the ledger cannot write', async () => {
    const logs: string[] = []
    const failing = createAiFacade({ env: fleet.env(KEYS), db: database().db, ledger: createDbLedger(async () => Promise.reject(new Error('ledger database down')), { log: line => void logs.push(line) }) })
    expect((await failing.generateContent({ prompt: 'p', feature: 'ledger_down' })).provider).toBe('mistral')
    await failing.flush()
    expect(logs).toEqual(['[ai] ledger: 1 row(s) not written: ledger database down'])

    const hanging = createAiFacade({ env: fleet.env(KEYS), db: database().db, ledger: createDbLedger(() => new Promise(() => {})) })
    const started = Date.now()
    expect((await hanging.generateContent({ prompt: 'p', feature: 'ledger_hang' })).provider).toBe('mistral')
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('holds no planted key in any row', async () => {
    const leaky = await startFleet({ mistral: 'expected-m', anthropic: 'expected-a', openai: 'expected-o', voyage: 'expected-v' })
    try {
      const { ai } = harness(leaky.env({ ...PLANTED_KEYS }), { db: database().db })
      await ai.generateContent({ prompt: 'p', feature: 'ledger_leak' }).catch(() => {})
      await ai.embed({ feature: 'ledger_leak', texts: ['x'] }).catch(() => {})
      await ai.embed({ feature: 'ledger_leak', texts: ['x'], provider: 'voyage' }).catch(() => {})
      await ai.flush()
    }
    finally {
      await leaky.close()
    }
    const dump = await database().db.execute<{ row: string }>(sql`select row_to_json(c)::text as row from ai_consumption c`)
    const audit = await database().db.execute<{ row: string }>(sql`select row_to_json(a)::text as row from hub_audit a`)
    // Three refused providers for the generation, one refused attempt per embedding call.
    expect(dump.filter(r => r.row.includes('ledger_leak'))).toHaveLength(3 + 1 + 1)
    const text = [...dump, ...audit].map(r => r.row).join('\n')
    for (const fragment of plantedKeyFragments()) expect(text.includes(fragment), fragment).toBe(false)
  })
})
