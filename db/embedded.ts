// The embedded default: PGlite (+ pgvector) under .data/, served on loopback by our
// multiplexer (db/embedded-socket.ts) so the hub and every automate talk to it through the
// same postgres.js code path as a real server. One process owns the data folder; the
// others find its address in the owner file, and its password in the data folder.
import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { DatabaseSetupError } from './errors'
import { isProcessAlive as processAlive } from './process'
import { embeddedPassword, ensurePrivateDataDir, makePrivate } from './embedded-files'
import { DEFAULT_IDLE_TX_TIMEOUT_MS } from './embedded-socket'
import { SESSION_SETTINGS_SQL } from './session-settings'

export { embeddedPassword } from './embedded-files'

export interface EmbeddedServer {
  url: string
  close: () => Promise<void>
}

/** The owner file never holds the password: that stays in DATA_DIR/embedded-password (0600). */
interface OwnerRecord { pid: number, url: string }

const OWNER_FILE = 'embedded-owner.json'

export const logEmbedded = (line: string) => process.stdout.write(`[synedre] ${line}\n`)

function readOwner(path: string): OwnerRecord | null {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as OwnerRecord
    return typeof record.pid === 'number' && typeof record.url === 'string' ? record : null
  }
  catch {
    return null
  }
}

/** The owner's address with the data folder's password in it. */
function withPassword(url: string, dataDir: string): string {
  const parsed = new URL(url)
  parsed.password = encodeURIComponent(embeddedPassword(dataDir))
  return parsed.toString()
}

/**
 * Address of an embedded server already serving dataDir, if its owner process is alive
 * (no network check: for callers that connect right away and report their own errors).
 */
export function findRunningEmbedded(dataDir: string): string | null {
  const record = readOwner(join(dataDir, OWNER_FILE))
  return record && processAlive(record.pid) ? withPassword(record.url, dataDir) : null
}

type OwnerCheck = { answers: true } | { answers: false, why: string }

/** Does the recorded owner speak PostgreSQL at its address, with our password? */
async function checkOwner(record: OwnerRecord, dataDir: string): Promise<OwnerCheck> {
  if (!processAlive(record.pid)) return { answers: false, why: `its process ${record.pid} is gone (the previous start crashed or was killed)` }
  const sql = postgres(withPassword(record.url, dataDir), { max: 1, connect_timeout: 2, onnotice: () => {} })
  try {
    const [row] = await Promise.race([
      sql<{ version: string }[]>`select version()`,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref()),
    ])
    // A server that let us in without checking the password is not ours either.
    if (!row?.version.includes('emscripten')) return { answers: false, why: `process ${record.pid} is alive, but ${record.url} is another PostgreSQL (${row?.version.split(' on ')[0] ?? 'unknown'}), not this data folder's` }
    return { answers: true }
  }
  catch (error) {
    const code = (error as { code?: string }).code
    return code === '28P01'
      ? { answers: false, why: `process ${record.pid} is alive, but the database at ${record.url} refuses this data folder's password (not ours)` }
      : { answers: false, why: `process ${record.pid} is alive but is not our database: nothing answers PostgreSQL at ${record.url} (${(error as Error).message})` }
  }
  finally {
    // A probe's pool: its verdict is already made, a failed close changes nothing.
    await sql.end({ timeout: 1 }).catch(() => {})
  }
}

/**
 * Address of the embedded server serving dataDir, checked by connecting to it; a stale
 * owner file (dead process, reused pid, another database) is removed and said so.
 */
export async function findAnsweringEmbedded(dataDir: string, log = logEmbedded): Promise<string | null> {
  const ownerPath = join(dataDir, OWNER_FILE)
  const record = readOwner(ownerPath)
  if (!record) {
    if (existsSync(ownerPath)) removeStaleOwner(ownerPath, 'it cannot be read', log)
    return null
  }
  const check = await checkOwner(record, dataDir)
  if (check.answers) return withPassword(record.url, dataDir)
  removeStaleOwner(ownerPath, check.why, log)
  return null
}

function removeStaleOwner(ownerPath: string, why: string, log: (line: string) => void): void {
  try {
    unlinkSync(ownerPath)
    log(`removed the stale owner file ${ownerPath}: ${why}.`)
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

function idleTransactionTimeoutMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.EMBEDDED_IDLE_TX_TIMEOUT_MS || DEFAULT_IDLE_TX_TIMEOUT_MS)
  if (!Number.isFinite(value) || value <= 0) {
    throw new DatabaseSetupError(`EMBEDDED_IDLE_TX_TIMEOUT_MS="${env.EMBEDDED_IDLE_TX_TIMEOUT_MS}" is not a number of milliseconds.`, 'Set it to a positive number (default 5000), or unset it.')
  }
  return value
}

/** Opens PGlite on dataDir/pglite and serves it on a loopback port, behind the folder's password. */
export async function startEmbeddedServer(
  dataDir: string,
  options: { port?: number, log?: (line: string) => void, env?: NodeJS.ProcessEnv } = {},
): Promise<EmbeddedServer> {
  const log = options.log ?? logEmbedded
  const idleMs = idleTransactionTimeoutMs(options.env ?? process.env)
  ensurePrivateDataDir(dataDir, log)
  const password = embeddedPassword(dataDir)
  const ownerPath = join(dataDir, OWNER_FILE)
  const claim = (): number | null => {
    try {
      return openSync(ownerPath, 'wx', 0o600)
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      return null
    }
  }
  let fd = claim()
  if (fd === null) {
    const record = readOwner(ownerPath)
    const check = record ? await checkOwner(record, dataDir) : { answers: false as const, why: 'it cannot be read' }
    if (check.answers && record!.pid !== process.pid) {
      throw new DatabaseSetupError(
        `The embedded database in ${dataDir} is already open by process ${record!.pid} (${record!.url}).`,
        'Connect to that address, or stop that process first.',
      )
    }
    removeStaleOwner(ownerPath, check.answers ? 'it was this process\'s own' : check.why, log)
    fd = claim()
    if (fd === null) throw new DatabaseSetupError(`Another process claimed ${dataDir} at the same moment.`, 'Start one instance at a time.')
  }

  const { PGlite } = await import('@electric-sql/pglite')
  const { vector } = await import('@electric-sql/pglite-pgvector')
  // unaccent and pg_trgm: recall's French configuration and its fuzzy expansion (migration 0020).
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent')
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm')
  const { serveOverSocket } = await import('./embedded-socket')
  let pglite: InstanceType<typeof PGlite>
  try {
    pglite = await PGlite.create(join(dataDir, 'pglite'), { extensions: { vector, unaccent, pg_trgm } })
  }
  catch (error) {
    closeSync(fd)
    unlinkSync(ownerPath)
    throw new DatabaseSetupError(
      `The embedded database in ${join(dataDir, 'pglite')} could not be opened: ${(error as Error).message}`,
      'Check the folder is a PGlite data folder that is not damaged; restore it from a backup otherwise (see docs/operations.md, "Where data lives and how to back it up").',
    )
  }
  makePrivate(dataDir)
  // The one backend ignores the clients' startup parameters: the sessions' settings are set on it.
  await pglite.exec(SESSION_SETTINGS_SQL)
  const server = await serveOverSocket(pglite, {
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: 64,
    password,
    idleTransactionTimeoutMs: idleMs,
    log,
  })
  const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`
  writeSync(fd, JSON.stringify({ pid: process.pid, url } satisfies OwnerRecord))
  closeSync(fd)

  let closing: Promise<void> | undefined
  return {
    url: withPassword(url, dataDir),
    // Each step runs even when the one before failed: the database must end closed and
    // the owner file removed, whatever the clients did.
    close: () =>
      (closing ??= (async () => {
        await server.stop().catch(error => log(`embedded database: closing the socket failed: ${(error as Error).message}`))
        await pglite.close().catch(error => log(`embedded database: closing PGlite failed: ${(error as Error).message}`))
        if (existsSync(ownerPath) && readOwner(ownerPath)?.pid === process.pid) unlinkSync(ownerPath)
      })()),
  }
}
