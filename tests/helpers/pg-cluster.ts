// A PostgreSQL 15 cluster of its own for a system test (initdb + pg_ctl with the Debian
// binaries): the test may restart it mid-load without touching the shared server on :5432.
// Loopback only, trust authentication, a free port; a cluster left behind by a killed run
// (its owner pid is dead) is stopped and removed before a new one starts.
import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { promisify } from 'node:util'
import { join } from 'node:path'
import postgres from 'postgres'
import { connectDatabase } from '#db/connection'
import { migrateDatabase } from '#db/migrate'
import { isProcessAlive } from '#db/process'
import { freePort } from '#layers/atlas/tests/fakes/ports'

export const PG_BIN = process.env.SYNEDRE_PG_BIN ?? '/usr/lib/postgresql/15/bin'
const CLUSTERS = '/tmp/synedre-pg-clusters'

export interface TestCluster {
  port: number
  dataDir: string
  /** The migrated database's address (127.0.0.1). */
  url: string
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when it resolves. */
  restart: () => void
  /** The postmaster's pid, null when none runs (pg_ctl starts it with setsid: it leads its backends' group). */
  postmasterPid: () => number | null
  /** `pg_ctl start` without blocking the event loop (after a crash it recovers first): for a server that was killed. */
  start: () => Promise<void>
  stop: () => void
}

const isRoot = process.getuid?.() === 0

/** Runs a PostgreSQL binary as the postgres user when we are root (initdb refuses root). */
function pg(binary: string, args: string[]): string {
  const command = isRoot ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]] as const : [join(PG_BIN, binary), args] as const
  return execFileSync(command[0], [...command[1]], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 })
}

/** `pg` without blocking: for a caller whose event loop must keep running meanwhile. */
async function pgAsync(binary: string, args: string[]): Promise<void> {
  const command = isRoot ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]] as const : [join(PG_BIN, binary), args] as const
  await promisify(execFile)(command[0], [...command[1]], { encoding: 'utf8', timeout: 120_000 })
}

function removeLeftovers(): void {
  if (!existsSync(CLUSTERS)) return
  for (const entry of readdirSync(CLUSTERS)) {
    const owner = Number(entry.split('-').pop())
    if (Number.isInteger(owner) && isProcessAlive(owner)) continue
    const dataDir = join(CLUSTERS, entry, 'data')
    if (existsSync(join(dataDir, 'postmaster.pid'))) {
      try {
        pg('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w'])
      }
      catch (error) {
        process.stderr.write(`[pg-cluster] stopping the leftover cluster ${entry} failed: ${(error as Error).message}\n`)
      }
    }
    rmSync(join(CLUSTERS, entry), { recursive: true, force: true })
  }
}

/** Server settings beyond the test defaults, as `name = value` (e.g. shared_buffers for a benchmark). */
export type ClusterSettings = Record<string, string>

export async function startTestCluster(name: string, settings: ClusterSettings = {}): Promise<TestCluster> {
  for (const [key, value] of Object.entries(settings)) {
    if (!/^[a-z_.]+$/.test(key) || !/^[\w.]+$/.test(value)) throw new Error(`not a server setting: ${key} = ${value}`)
  }
  removeLeftovers()
  const root = join(CLUSTERS, `${name}-${process.pid}`)
  const dataDir = join(root, 'data')
  mkdirSync(CLUSTERS, { recursive: true, mode: 0o755 })
  mkdirSync(root, { mode: 0o700 })
  if (isRoot) chownSync(root, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })))
  pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'])
  const port = await freePort()
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200${Object.entries(settings).map(([key, value]) => ` -c ${key}=${value}`).join('')}`
  pg('pg_ctl', ['start', '-D', dataDir, '-l', join(root, 'server.log'), '-o', options, '-w', '-t', '60'])
  const admin = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} })
  await admin.unsafe('create database synedre')
  await admin.end()
  const url = `postgres://postgres@127.0.0.1:${port}/synedre`
  const database = await connectDatabase(url, { max: 2 })
  try {
    await migrateDatabase(database)
  }
  finally {
    await database.close()
  }
  let stopped = false
  return {
    port,
    dataDir,
    url,
    restart: () => void pg('pg_ctl', ['restart', '-D', dataDir, '-m', 'fast', '-l', join(root, 'server.log'), '-o', options, '-w', '-t', '60']),
    postmasterPid: () => {
      try {
        const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
        return Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) ? pid : null
      }
      catch {
        // No pid file: the server is down.
        return null
      }
    },
    start: () => pgAsync('pg_ctl', ['start', '-D', dataDir, '-l', join(root, 'server.log'), '-o', options, '-w', '-t', '60']),
    stop: () => {
      if (stopped) return
      stopped = true
      try {
        pg('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w'])
      }
      finally {
        rmSync(root, { recursive: true, force: true })
      }
    },
  }
}
