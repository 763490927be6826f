// Peers on the same work, in the same run (issue 17, deliver 9): the AI facade's
// `complete()` with provider `auto` — routing read through its cache, the ledger written to
// PostgreSQL in batches — against Portkey's gateway (in-process through its Hono app, and as
// its own server) and the Vercel AI SDK (`ai` with @ai-sdk/mistral and
// @ai-sdk/openai-compatible), each calling the same zero-latency loopback provider running
// in its own process. Interleaved call by call; the added latency over a bare `fetch` (p50, p99),
// sequential throughput, and ours ÷ theirs. A table of both sides goes to stderr. Then
// recall against mem0 (peers-recall.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createMistral } from '@ai-sdk/mistral'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText } from 'ai'
import { createAiFacade } from '#layers/ai/core/facade'
import { upsertRouting } from '#layers/ai/core/routing-store'
import { nativeBenchDatabase } from './databases'
import { recallPeerFigures } from './peers-recall'
import { percentile, sample, sized, type BenchFigure } from './lib'

const HERE = dirname(fileURLToPath(import.meta.url))
const KEY = 'bench-peers-key'
const MODEL = 'mistral-large-latest'
/** Calls of each side measured, after 200 warm-up calls each (BENCH_SIZE=tiny, bench/lib.ts: 20 after 5). */
const SAMPLES = sized(2000, 20)
const WARMUP = sized(200, 5)
const quiet = () => {}
const log = (line: string) => process.stderr.write(`[bench] peers: ${line}\n`)

/** Starts a child process and resolves with the first stdout line matching `ready`. */
function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess, line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] })
    let buffer = ''
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in 30 s`)), 30_000)
    child.once('exit', code => reject(new Error(`${args.join(' ')} exited with ${code}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      const match = buffer.match(ready)
      if (match) {
        clearTimeout(timer)
        child.removeAllListeners('exit')
        resolve({ child, line: match[0] })
      }
    })
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * Portkey's Hono app, in-process: the published package is a single bundle that builds the
 * app then serves it; a copy of it ending before `serve(...)` and exporting the app is loaded
 * instead (written beside the bundle, so its own dependencies resolve). Pinned to 1.15.2.
 */
async function portkeyApp(): Promise<{ fetch: (request: Request) => Promise<Response> }> {
  const bundle = createRequire(import.meta.url).resolve('@portkey-ai/gateway/build/start-server.js')
  const source = readFileSync(bundle, 'utf8')
  const serve = source.match(/const (\w+)=`http:\/\/localhost:\$\{\w+\}`;\w+\(\w+\(\{fetch:(\w+)\.fetch,port:\w+\}\)\)/)
  if (!serve) throw new Error('the Portkey bundle does not end as 1.15.2 does: its Hono app cannot be loaded in-process')
  const copy = join(dirname(bundle), 'synedre-bench-app.mjs')
  writeFileSync(copy, `${source.slice(source.indexOf('\n') + 1, serve.index)}\nexport default ${serve[2]};\n`)
  return (await import(pathToFileURL(copy).href)).default
}

interface Side {
  name: string
  call: () => Promise<unknown>
  samples: number[]
}

async function gatewayFigures(): Promise<BenchFigure[]> {
  const provider = await start(['--import', 'tsx', join(HERE, 'peers-provider.ts')], { PEERS_KEY: KEY }, /http:\/\/\S+/)
  const url = provider.line
  const port = await freePort()
  const portkeyBundle = createRequire(import.meta.url).resolve('@portkey-ai/gateway/build/start-server.js')
  const portkeyServer = await start([portkeyBundle, `--port=${port}`, '--headless'], {}, /Ready for connections/)
  const database = await nativeBenchDatabase('peers', { max: 4 })
  try {
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'ping' }] })
    const json = { 'content-type': 'application/json' }
    const bare = async () => (await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...json, authorization: `Bearer ${KEY}` }, body })).json()

    await upsertRouting(database.db, 'bench_peers', { completeProvider: 'mistral', completeModel: MODEL }, 'bench')
    const ai = createAiFacade({ env: { MISTRAL_API_KEY: KEY, MISTRAL_BASE_URL: `${url}/v1` }, db: database.db, log: quiet })
    const ours = async () => {
      const answer = await ai.complete({ feature: 'bench_peers', prompt: 'ping' })
      if (answer.content !== 'ok' || answer.provider !== 'mistral') throw new Error(`our facade answered ${JSON.stringify(answer.content)} from ${answer.provider}`)
    }

    const portkeyHeaders = { ...json, 'authorization': `Bearer ${KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${url}/v1` }
    const app = await portkeyApp()
    const portkeyInProcess = async () => (await app.fetch(new Request('http://localhost/v1/chat/completions', { method: 'POST', headers: portkeyHeaders, body }))).json()
    const portkeyOwnServer = async () => (await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: portkeyHeaders, body })).json()

    const mistral = createMistral({ baseURL: `${url}/v1`, apiKey: KEY })
    const compatible = createOpenAICompatible({ name: 'loopback', baseURL: `${url}/v1`, apiKey: KEY })
    const aiSdkMistral = async () => generateText({ model: mistral(MODEL), prompt: 'ping' })
    const aiSdkCompatible = async () => generateText({ model: compatible(MODEL), prompt: 'ping' })

    const sides: Side[] = [
      { name: 'bare fetch', call: bare, samples: [] },
      { name: 'ours: complete(auto), routing + PostgreSQL ledger', call: ours, samples: [] },
      { name: 'Portkey gateway, in-process (Hono app)', call: portkeyInProcess, samples: [] },
      { name: 'Portkey gateway, own server', call: portkeyOwnServer, samples: [] },
      { name: 'AI SDK generateText + @ai-sdk/mistral', call: aiSdkMistral, samples: [] },
      { name: 'AI SDK generateText + @ai-sdk/openai-compatible', call: aiSdkCompatible, samples: [] },
    ]
    // Every side answers correctly before anything is timed.
    const check = await portkeyInProcess() as { choices?: Array<{ message?: { content?: string } }> }
    if (check.choices?.[0]?.message?.content !== 'ok') throw new Error(`Portkey answered ${JSON.stringify(check)}`)
    if ((await aiSdkMistral()).text !== 'ok' || (await aiSdkCompatible()).text !== 'ok') throw new Error('the AI SDK did not answer "ok"')

    // Interleaved call by call (one call of each side in turn), so every side sees the same
    // machine state: on a loaded machine, blocks of calls per side measured the load's swings.
    for (const side of sides) await sample(side.call, 0, WARMUP)
    for (let index = 0; index < SAMPLES; index++) {
      for (const side of sides) {
        const start = process.hrtime.bigint()
        await side.call()
        side.samples.push(Number(process.hrtime.bigint() - start) / 1000)
      }
    }
    await ai.flush()

    const bareP50 = percentile(sides[0]!.samples, 50)
    const bareP99 = percentile(sides[0]!.samples, 99)
    const rows = sides.map(side => ({
      name: side.name,
      p50: percentile(side.samples, 50),
      p99: percentile(side.samples, 99),
      added50: percentile(side.samples, 50) - bareP50,
      added99: percentile(side.samples, 99) - bareP99,
      perS: side.samples.length / (side.samples.reduce((sum, us) => sum + us, 0) / 1e6),
    }))
    const [, our, portkeyIn, portkeyOwn, sdkMistral, sdkCompatible] = rows as [
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
    ]
    const pad = (text: string, width: number) => text.padEnd(width)
    const num = (value: number) => value.toFixed(0).padStart(9)
    process.stderr.write(`\n${pad('side', 52)}${'p50 µs'.padStart(9)}${'p99 µs'.padStart(9)}${'+p50 µs'.padStart(9)}${'+p99 µs'.padStart(9)}${'calls/s'.padStart(9)}${'ours÷them'.padStart(11)}\n`)
    for (const row of rows) {
      const ratio = row === rows[0] || row === our ? '' : (our.added50 / row.added50).toFixed(2)
      process.stderr.write(`${pad(row.name, 52)}${num(row.p50)}${num(row.p99)}${num(row.added50)}${num(row.added99)}${num(row.perS)}${ratio.padStart(11)}\n`)
    }
    process.stderr.write('\n')

    const context = {
      provider: 'loopback node:http server in its own process, Mistral/OpenAI chat format, answering at once',
      ours: 'createAiFacade({ db }).complete({ feature, prompt }) with provider auto: ai_routing through the per-process cache, ai_consumption rows batched to native PostgreSQL',
      interleaved: 'call by call',
      samplesEach: SAMPLES,
      table: Object.fromEntries(
        rows.map(row => [
          row.name,
          {
            p50Us: Math.round(row.p50),
            p99Us: Math.round(row.p99),
            addedP50Us: Math.round(row.added50),
            addedP99Us: Math.round(row.added99),
            callsPerS: Math.round(row.perS),
          },
        ]),
      ),
      loadAverage: loadavg().map(value => Number(value.toFixed(2))),
      versions: { '@portkey-ai/gateway': '1.15.2', 'ai': '7.0.173', '@ai-sdk/mistral': '4.0.87', '@ai-sdk/openai-compatible': '3.0.92' },
    }
    const ratio = (theirs: typeof our) => Number((our.added50 / theirs.added50).toFixed(2))
    log(`ours +${our.added50.toFixed(0)} µs; Portkey in-process +${portkeyIn.added50.toFixed(0)} µs, own server +${portkeyOwn.added50.toFixed(0)} µs; AI SDK +${sdkMistral.added50.toFixed(0)} µs (mistral), +${sdkCompatible.added50.toFixed(0)} µs (openai-compatible)`)
    return [
      { name: 'peers.gateway_overhead_ratio_portkey', value: ratio(portkeyIn), unit: 'ratio', lowerIsBetter: true, context: { ...context, definition: 'added p50 over a bare fetch, ours ÷ Portkey in-process (its Hono app, no HTTP hop: the harder comparison); goal ≤ 0.5', oursVsOwnServer: ratio(portkeyOwn) } },
      { name: 'peers.gateway_overhead_ratio_portkey_server', value: ratio(portkeyOwn), unit: 'ratio', lowerIsBetter: true, context: { ...context, definition: 'added p50 over a bare fetch, ours ÷ Portkey as its own server (one more loopback hop)' } },
      { name: 'peers.gateway_overhead_ratio_ai_sdk', value: ratio(sdkMistral), unit: 'ratio', lowerIsBetter: true, context: { ...context, definition: 'added p50 over a bare fetch, ours ÷ AI SDK generateText with @ai-sdk/mistral; goal ≤ 0.5', oursVsOpenAiCompatible: ratio(sdkCompatible) } },
      { name: 'peers.gateway_throughput_ratio_ai_sdk', value: Number((our.perS / sdkMistral.perS).toFixed(2)), unit: 'ratio', lowerIsBetter: false, context: { ...context, definition: 'sequential calls per second, ours ÷ AI SDK (mistral)', oursVsPortkeyInProcess: Number((our.perS / portkeyIn.perS).toFixed(2)) } },
    ]
  }
  finally {
    await database.close()
    portkeyServer.child.kill()
    provider.child.stdin!.end()
  }
}

export default async function (): Promise<BenchFigure[]> {
  return [...await gatewayFigures(), ...await recallPeerFigures()]
}
