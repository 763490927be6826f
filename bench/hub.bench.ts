// The hub as its users load it, on the embedded default: the real launcher (npm start),
// signed-in inbox reads from 50 connections at once for a fixed time.
import { mkdirSync } from 'node:fs'
import { FOUNDER, signIn, startHub } from '../tests/helpers/hub'
import { TESTS_TMP } from '../tests/helpers/database-config'
import type { BenchFigure } from './lib'

const CONNECTIONS = 50
const SECONDS = 10

export default async function (): Promise<BenchFigure[]> {
  mkdirSync(TESTS_TMP, { recursive: true })
  const hub = await startHub({ args: ['--no-supervisor'] })
  try {
    const cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
    const read = async () => {
      const response = await fetch(`${hub.url}/api/atlas/inbox?pageSize=50`, { headers: { cookie } })
      if (response.status !== 200) throw new Error(`inbox answered ${response.status}`)
      await response.arrayBuffer()
    }
    for (let i = 0; i < 20; i++) await read()
    let done = 0
    const deadline = Date.now() + SECONDS * 1000
    const started = process.hrtime.bigint()
    await Promise.all([...Array(CONNECTIONS)].map(async () => {
      while (Date.now() < deadline) {
        await read()
        done++
      }
    }))
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    return [{
      name: 'hub.inbox_rps_50c',
      value: Math.round(done / elapsed),
      unit: 'requests/s',
      lowerIsBetter: false,
      context: { connections: CONNECTIONS, seconds: SECONDS, route: 'GET /api/atlas/inbox?pageSize=50 (signed in)', database: 'embedded', requests: done },
    }]
  }
  finally {
    await hub.interrupt()
  }
}
