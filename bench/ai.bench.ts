// The AI facade's own cost: a completion through the facade against a direct ofetch call
// to the same loopback fake (Mistral wire format, answering at once), measured side by
// side in interleaved rounds; and embedding throughput in batches of 50.
import { ofetch } from 'ofetch'
import { embeddedBenchDatabase } from './databases'
import { median, sample, sized, type BenchFigure, type Benchmark } from './lib'
import { startFakeServer } from '#layers/ai/tests/fakes/server'
import { openAiStyle } from '#layers/ai/tests/fakes/providers'
import { createAiFacade } from '#layers/ai/core/facade'
import { noopLedger } from '#layers/ai/core/ledger'
import { upsertRouting } from '#layers/ai/core/routing-store'

const KEY = 'bench-key'
// BENCH_SIZE=tiny (bench/lib.ts): 2 rounds of 20 calls a side, 20 routed calls, 5 embedding batches a side.
const ROUNDS = sized(10, 2)
const PER_ROUND = sized(200, 20)
const FIRST_WARMUP = sized(200, 5)
const ROUND_WARMUP = sized(20, 2)
const ROUTED = sized(1_000, 20)
const BATCHES = sized(200, 5)
const quiet = () => {}

const words = 'le déploiement de la préproduction a échoué sur la page panier du client après la migration de la base et du cache'.split(' ')
const text = (i: number) => Array.from({ length: 45 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ')

const benchmark: Benchmark = async () => {
  const fake = await startFakeServer(openAiStyle({ key: KEY, flavour: 'mistral', reply: () => 'ok' }))
  const env = { MISTRAL_API_KEY: KEY, MISTRAL_BASE_URL: `${fake.url}/v1` }
  const body = { model: 'mistral-large-latest', messages: [{ role: 'user', content: 'ping' }], temperature: 0.7, max_tokens: 4096 }
  const direct = () => ofetch(`${fake.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body })
  const ai = createAiFacade({ env, ledger: noopLedger, log: quiet })
  const viaFacade = () => ai.generateContent({ prompt: 'ping', feature: 'bench', provider: 'mistral' })

  // Interleaved rounds, so both sides see the same machine state.
  const directSamples: number[] = []
  const facadeSamples: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    directSamples.push(...await sample(direct, PER_ROUND, round === 0 ? FIRST_WARMUP : ROUND_WARMUP))
    facadeSamples.push(...await sample(viaFacade, PER_ROUND, round === 0 ? FIRST_WARMUP : ROUND_WARMUP))
  }
  const directP50 = median(directSamples)
  const facadeP50 = median(facadeSamples)

  // The same call with the database in the loop: provider 'auto' read from ai_routing at
  // every call and ledger rows written to a throwaway embedded database.
  const database = await embeddedBenchDatabase('ai', { max: 4 })
  let routedP50: number
  try {
    await upsertRouting(database.db, 'bench', { completeProvider: 'mistral', completeModel: 'mistral-large-latest' }, 'bench')
    const withDb = createAiFacade({ env, db: database.db, log: quiet })
    const routed = await sample(() => withDb.complete({ feature: 'bench', prompt: 'ping' }), ROUTED, Math.ceil(ROUTED / 10))
    await withDb.flush()
    routedP50 = median(routed)
  }
  finally {
    await database.close()
  }

  // Embeddings, batches of 50: the offline embedder (the embedded default) through the
  // facade, and the HTTP path to the loopback fake with the throttle off.
  const batch = Array.from({ length: 50 }, (_, i) => text(i))
  const offline = createAiFacade({ env: {}, ledger: noopLedger, log: quiet })
  const offlineBatch = median(await sample(() => offline.embed({ feature: 'bench', texts: batch }), BATCHES, Math.ceil(BATCHES / 10)))
  const http = createAiFacade({ env, ledger: noopLedger, log: quiet, embedThrottleMs: 0 })
  const httpBatch = median(await sample(() => http.embed({ feature: 'bench', texts: batch }), BATCHES, Math.ceil(BATCHES / 10)))
  await fake.close()

  const context = {
    fake: 'loopback node:http server speaking the Mistral chat format, answering at once',
    direct_p50_us: Math.round(directP50),
    facade_p50_us: Math.round(facadeP50),
    samples_each: ROUNDS * PER_ROUND,
    rounds: ROUNDS,
    facade_call: 'generateContent({ provider: "mistral" }), no-op ledger sink, no database',
    with_embedded_db_p50_us: Math.round(routedP50),
    with_embedded_db_overhead_us: Math.round(routedP50 - directP50),
    with_embedded_db_call: 'complete({ provider: "auto" }): ai_routing read and ai_consumption row written (throwaway embedded PGlite)',
  }
  const figures: BenchFigure[] = [
    { name: 'ai.facade_overhead_us_p50', value: Math.round(facadeP50 - directP50), unit: 'µs', lowerIsBetter: true, context },
    { name: 'ai.facade_overhead_ratio', value: Number((facadeP50 / directP50).toFixed(3)), unit: 'ratio', lowerIsBetter: true, context },
    {
      name: 'ai.embed_batch50_texts_per_s',
      value: Math.round(50 / (offlineBatch / 1e6)),
      unit: 'texts/s',
      lowerIsBetter: false,
      context: {
        provider: 'offline (hashed words + character trigrams, 1024 dimensions) through embed(), no-op ledger sink',
        text_chars: batch[0]!.length,
        batch_p50_us: Math.round(offlineBatch),
        loopback_http_mistral_texts_per_s: Math.round(50 / (httpBatch / 1e6)),
        loopback_http_note: 'same batches to the loopback Mistral fake, throttle off (production waits 1.3 s between embedding calls)',
      },
    },
  ]
  return figures
}

export default benchmark
