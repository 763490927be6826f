// Routing without a round trip, across processes: each process keeps its own copy of the
// routing table (read at most once a second), yet an edit made through the hub reaches the
// next call of another process — an automate-like worker with its own facade — with no restart.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { findRunningEmbedded } from '#db/embedded'
import { startFleet, KEYS, type Fleet } from '#layers/ai/tests/fakes/fleet'
import { ROUTING_REFRESH_MS } from '#layers/ai/core/routing-store'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'
import { ROOT } from '../helpers/processes'

let hub: Hub
let fleet: Fleet
let cookie: string
let worker: ChildProcessWithoutNullStreams
let answers: AsyncIterator<string>

beforeAll(async () => {
  fleet = await startFleet({ mistral: KEYS.MISTRAL_API_KEY, openai: KEYS.OPENAI_API_KEY, anthropic: KEYS.ANTHROPIC_API_KEY })
  hub = await startHub({ args: ['--no-supervisor'], env: { ...fleet.env(KEYS), VOYAGE_API_KEY: '', OPENAI_COMPAT_BASE_URL: '' } })
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  worker = spawn(process.execPath, ['--import', 'tsx', 'layers/ai/tests/fakes/complete-worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...fleet.env(KEYS), DATABASE_URL: findRunningEmbedded(hub.dataDir)! },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  worker.stderr.on('data', chunk => process.stderr.write(`[worker] ${String(chunk)}`))
  answers = createInterface({ input: worker.stdout })[Symbol.asyncIterator]()
  expect((await answers.next()).value).toBe('ready')
}, 180_000)

afterAll(async () => {
  worker?.stdin.end()
  worker?.kill()
  await hub?.interrupt()
  await fleet?.close()
})

async function workerCall(feature: string): Promise<{ provider: string, model: string }> {
  worker.stdin.write(`${feature}\n`)
  const { value } = await answers.next()
  return JSON.parse(value as string) as { provider: string, model: string }
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

it('a routing edit made through the hub is used by the other process\'s next call', async () => {
  expect(await workerCall('atlas_classify')).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })
  // Calls within the second are served from the worker's copy of the table.
  expect(await workerCall('atlas_classify')).toMatchObject({ provider: 'mistral' })

  const edit = await fetch(`${hub.url}/api/ai/routing/atlas_classify`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ completeProvider: 'openai', completeModel: 'gpt-4o-mini' }),
  })
  expect(edit.status, await edit.clone().text()).toBe(200)
  // The worker's copy is at most a second old: its next call after that uses the edit.
  await sleep(ROUTING_REFRESH_MS + 100)
  expect(await workerCall('atlas_classify')).toMatchObject({ provider: 'openai', model: expect.stringMatching(/^gpt-4o-mini/) })
  expect(fleet.openai.requests.length).toBeGreaterThan(0)

  // And back: deleting the row through the hub restores the global route on the next call.
  const removed = await fetch(`${hub.url}/api/ai/routing/atlas_classify`, { method: 'DELETE', headers: { cookie } })
  expect(removed.status).toBe(200)
  await sleep(ROUTING_REFRESH_MS + 100)
  expect((await workerCall('atlas_classify')).provider).not.toBe('openai')
}, 60_000)
