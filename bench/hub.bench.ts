// The hub as its users load it, on the embedded default: the real launcher (npm start),
// signed-in inbox reads from 50 connections at once for a fixed time — first on the fresh
// hub's empty inbox (the figure issue 13 measured, about 420/s then), then a 50-row page of
// an inbox of 200 classified messages (what a studio's inbox looks like) — and, in the same
// run, the public health probe (one small query, no session) as the machine's reference:
// side by side they say how much of a figure is the machine's load. Then the same inbox page
// read with a personal access token and with the session cookie, turn about on each connection:
// the ratio of their p50 latencies is what a token costs over a cookie (issue 34, goal ≤ 1.2).
import { mkdirSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '#tests/helpers/hub'
import { TESTS_TMP } from '#tests/helpers/database-config'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { percentile, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): half a second of reads from 5 connections, an inbox of 20 messages.
const CONNECTIONS = sized(50, 5)
const SECONDS = sized(10, 0.5)
const MESSAGES = sized(200, 20)
const WARMUP = sized(20, 2)

async function seedInbox(hub: Hub): Promise<void> {
  const database = await hubDatabase(hub)
  try {
    for (let i = 0; i < MESSAGES; i++) await classifiedMessage(database.db, { subject: `Demande ${i}`, status: i % 10 === 0 ? 'escalated' : 'classified' })
  }
  finally {
    await database.close()
  }
}

/** Requests per second from CONNECTIONS loops reading `path` for SECONDS. */
async function throughput(url: string, cookie: string | undefined): Promise<{ rps: number, requests: number }> {
  const read = async () => {
    const response = await fetch(url, { headers: cookie ? { cookie } : {} })
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
    await response.arrayBuffer()
  }
  for (let i = 0; i < WARMUP; i++) await read()
  let requests = 0
  const deadline = Date.now() + SECONDS * 1000
  const started = process.hrtime.bigint()
  await Promise.all([...Array(CONNECTIONS)].map(async () => {
    while (Date.now() < deadline) {
      await read()
      requests++
    }
  }))
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9
  return { rps: Math.round(requests / elapsed), requests }
}

/** A token of the founder's that reads Atlas, made through the route a person uses. */
async function readToken(hub: Hub, cookie: string): Promise<string> {
  const response = await fetch(`${hub.url}/api/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ name: 'bench', scopes: ['atlas:read'] }),
  })
  if (response.status !== 201) throw new Error(`token creation answered ${response.status}`)
  return (await response.json() as { secret: string }).secret
}

/** Per-request latencies (ms) of one URL read with each set of headers in turn, on CONNECTIONS loops for SECONDS. */
async function pairedLatencies(url: string, sides: Record<'session' | 'token', Record<string, string>>): Promise<Record<'session' | 'token', number[]>> {
  const samples: Record<'session' | 'token', number[]> = { session: [], token: [] }
  const read = async (side: 'session' | 'token') => {
    const started = process.hrtime.bigint()
    const response = await fetch(url, { headers: sides[side] })
    if (response.status !== 200) throw new Error(`${url} (${side}) answered ${response.status}`)
    await response.arrayBuffer()
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  for (let i = 0; i < WARMUP; i++) await Promise.all([read('session'), read('token')])
  const deadline = Date.now() + SECONDS * 1000
  await Promise.all([...Array(CONNECTIONS)].map(async (_, connection) => {
    // Half the loops start with the token: neither side always follows the other.
    let side: 'session' | 'token' = connection % 2 ? 'token' : 'session'
    while (Date.now() < deadline) {
      samples[side].push(await read(side))
      side = side === 'session' ? 'token' : 'session'
    }
  }))
  return samples
}

export default async function (): Promise<BenchFigure[]> {
  mkdirSync(TESTS_TMP, { recursive: true })
  const hub = await startHub({ args: ['--no-supervisor'] })
  try {
    const cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
    const inbox = await throughput(`${hub.url}/api/atlas/inbox?pageSize=50`, cookie)
    await seedInbox(hub)
    const fullInbox = await throughput(`${hub.url}/api/atlas/inbox?pageSize=50`, cookie)
    const health = await throughput(`${hub.url}/api/health`, undefined)
    const token = await readToken(hub, cookie)
    const paired = await pairedLatencies(`${hub.url}/api/atlas/inbox?pageSize=50`, { session: { cookie }, token: { authorization: `Bearer ${token}` } })
    const sessionP50 = percentile(paired.session, 50)
    const tokenP50 = percentile(paired.token, 50)
    const context = { connections: CONNECTIONS, seconds: SECONDS, database: 'embedded' }
    const route = 'GET /api/atlas/inbox?pageSize=50 (signed in)'
    return [
      {
        name: 'hub.inbox_rps_50c',
        value: inbox.rps,
        unit: 'requests/s',
        lowerIsBetter: false,
        context: { ...context, route, inboxMessages: 0, requests: inbox.requests, goal: '> 1000', healthRpsSameRun: health.rps },
      },
      {
        name: 'hub.inbox_rps_50c_200_messages',
        value: fullInbox.rps,
        unit: 'requests/s',
        lowerIsBetter: false,
        context: {
          ...context,
          route,
          inboxMessages: MESSAGES,
          rowsPerPage: 50,
          requests: fullInbox.requests,
          healthRpsSameRun: health.rps,
        },
      },
      {
        name: 'hub.health_rps_50c',
        value: health.rps,
        unit: 'requests/s',
        lowerIsBetter: false,
        context: {
          ...context,
          route: 'GET /api/health (public, one query)',
          requests: health.requests,
          role: 'the reference for hub.inbox_rps_50c, same run',
        },
      },
      {
        name: 'hub.token_auth_ratio',
        value: Number((tokenP50 / sessionP50).toFixed(3)),
        unit: 'ratio',
        lowerIsBetter: true,
        context: {
          ...context,
          route: 'GET /api/atlas/inbox?pageSize=50',
          inboxMessages: MESSAGES,
          goal: '≤ 1.2',
          tokenP50Ms: Number(tokenP50.toFixed(2)),
          sessionP50Ms: Number(sessionP50.toFixed(2)),
          tokenReads: paired.token.length,
          sessionReads: paired.session.length,
          order: 'token and cookie reads in turn on each connection',
        },
      },
    ]
  }
  finally {
    await hub.interrupt()
    // The hub's throwaway data folder (tests/helpers/hub.ts's tempDataDir: 45 MB a run).
    rmSync(dirname(hub.dataDir), { recursive: true, force: true })
  }
}
