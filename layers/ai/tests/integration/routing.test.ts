// Database-driven routing on both databases: the seeded rows, an edit taking effect on the
// next call of the same facade (no restart), the canonical defaults when the table is empty
// or the database unreachable.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness } from '../fakes/harness'
import { deleteRouting, listRouting, upsertRouting } from '../../core/routing-store'
import { noopLedger } from '../../core/ledger'

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

describeOnBothDatabases('AI routing table', (database) => {
  it('is seeded with the global row and the Atlas classifier row', async () => {
    const { rows, canonical } = await listRouting(database().db)
    expect(canonical).toBe(false)
    const byFeature = Object.fromEntries(rows.map(row => [row.feature, row]))
    expect(byFeature.default).toMatchObject({ completeProvider: 'anthropic', completeModel: 'claude-haiku-4-5', embedProvider: 'mistral', embedModel: 'mistral-embed', params: { dimensions: 1024 } })
    expect(byFeature.atlas_classify).toMatchObject({ completeProvider: 'mistral', completeModel: 'mistral-small-latest', params: { timeoutMs: 30_000 } })
    expect(byFeature.atlas_classify!.effective.embed).toMatchObject({ provider: 'mistral', model: 'mistral-embed', source: 'global' })
  })

  it('applies an edit to the very next call of the same facade', async () => {
    const { db } = database()
    const { ai } = harness(fleet.env(KEYS), { db, ledger: noopLedger })
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })

    await upsertRouting(db, 'atlas_classify', { completeProvider: 'openai', completeModel: 'gpt-4o-mini' }, 'founder@example.test')
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini-2024-08-06' })
    expect(fleet.openai.requests[0]!.body.model).toBe('gpt-4o-mini')

    await upsertRouting(db, 'memory_recall', { embedProvider: 'voyage', embedModel: 'voyage-3' }, 'founder@example.test')
    expect(await ai.embed({ feature: 'memory_recall', texts: ['q'], inputType: 'query' })).toMatchObject({ provider: 'voyage', model: 'voyage-3' })
    expect(await ai.embed({ feature: 'memory_sync', texts: ['d'] })).toMatchObject({ provider: 'mistral', model: 'mistral-embed' })

    // Editing the global row moves every feature without a row of its own.
    await upsertRouting(db, 'default', { completeProvider: 'mistral', completeModel: null }, 'founder@example.test')
    expect(await ai.complete({ feature: 'learning_debrief', prompt: 'p' })).toMatchObject({ provider: 'mistral', model: 'mistral-large-latest' })

    const audit = await db.execute<{ action: string, target: string, actor: string }>(sql`select action, target, actor from hub_audit where action like 'ai_routing%' order by id`)
    expect(audit.map(row => row.target)).toEqual(['atlas_classify', 'memory_recall', 'default'])
    expect(audit.every(row => row.actor === 'founder@example.test')).toBe(true)

    expect(await deleteRouting(db, 'memory_recall', 'founder@example.test')).toBe(true)
    expect(await ai.embed({ feature: 'memory_recall', texts: ['q'] })).toMatchObject({ provider: 'mistral' })
  })

  it('reads the table at most once a second: no round trip on the calls\' path; an edit made elsewhere is seen once the second is over', async () => {
    const { db } = database()
    const reads: string[] = []
    // Counts the facade's reads of ai_routing (a select on the table) through the database handle.
    const counted = new Proxy(db, {
      get(target, property, receiver) {
        if (property === 'select') reads.push('select')
        return Reflect.get(target, property, receiver) as unknown
      },
    })
    const { ai, clock } = harness(fleet.env(KEYS), { db: counted, ledger: noopLedger })
    for (let call = 0; call < 20; call++) await ai.complete({ feature: 'atlas_classify', prompt: 'p' })
    await ai.embed({ feature: 'memory_sync', texts: ['d'] })
    expect(reads).toHaveLength(1)

    // Another process's edit (here: straight into the table): not seen within the second…
    await db.execute(sql`update ai_routing set complete_provider = 'anthropic', complete_model = 'claude-haiku-4-5', updated_at = now() where feature = 'atlas_classify'`)
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'openai' })
    // …and used by the first call after it.
    clock.t += 1000
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(reads).toHaveLength(2)
  })

  it('falls back to the canonical defaults when the table is empty', async () => {
    const { db } = database()
    await db.execute(sql`delete from ai_routing`)
    const { ai } = harness(fleet.env(KEYS), { db, ledger: noopLedger })
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })
    expect(await ai.complete({ feature: 'other', prompt: 'p' })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(await ai.embed({ feature: 'memory_sync', texts: ['x'] })).toMatchObject({ provider: 'mistral', model: 'mistral-embed', dimensions: 1024 })
    expect((await listRouting(db)).canonical).toBe(true)
  })
})

it('falls back to the canonical defaults when the database is unreachable', async () => {
  const { ai, logs } = harness(fleet.env(KEYS), { db: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')), ledger: noopLedger })
  expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p' })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })
  expect(await ai.embed({ feature: 'memory_sync', texts: ['x'] })).toMatchObject({ provider: 'mistral', model: 'mistral-embed' })
  expect(logs.some(line => line.includes('database unreachable'))).toBe(true)
})
