// The embedded default: PGlite (+ pgvector) under .data/, served on loopback by
// pglite-socket so the hub and every automate talk to it through the same postgres.js
// code path as a real server. One process owns the data folder; the others find its
// address in the owner file and connect to it.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync, accessSync, constants } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSetupError } from './errors'
import { isProcessAlive as processAlive } from './process'

export interface EmbeddedServer {
  url: string
  close: () => Promise<void>
}

interface OwnerRecord { pid: number, url: string }

const OWNER_FILE = 'embedded-owner.json'

function readOwner(path: string): OwnerRecord | null {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as OwnerRecord
    return typeof record.pid === 'number' && typeof record.url === 'string' ? record : null
  }
  catch {
    return null
  }
}

function ensureWritableFolder(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true })
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK)
  }
  catch (error) {
    throw new DatabaseSetupError(
      `The data folder ${dataDir} cannot be read and written (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      `Give the user running Synedre OS read and write access to it (chown/chmod), or point DATA_DIR at a writable folder.`,
    )
  }
}

/** Address of an embedded server already serving dataDir, if its owner is alive. */
export function findRunningEmbedded(dataDir: string): string | null {
  const record = readOwner(join(dataDir, OWNER_FILE))
  return record && processAlive(record.pid) ? record.url : null
}

/** Opens PGlite on dataDir/pglite and serves it on a loopback port. */
export async function startEmbeddedServer(dataDir: string, options: { port?: number } = {}): Promise<EmbeddedServer> {
  ensureWritableFolder(dataDir)
  const ownerPath = join(dataDir, OWNER_FILE)
  const claim = (): number | null => {
    try {
      return openSync(ownerPath, 'wx')
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      return null
    }
  }
  let fd = claim()
  if (fd === null) {
    const record = readOwner(ownerPath)
    if (record && processAlive(record.pid) && record.pid !== process.pid) {
      throw new DatabaseSetupError(
        `The embedded database in ${dataDir} is already open by process ${record.pid} (${record.url}).`,
        'Connect to that address, or stop that process first.',
      )
    }
    unlinkSync(ownerPath)
    fd = claim()
    if (fd === null) throw new DatabaseSetupError(`Another process claimed ${dataDir} at the same moment.`, 'Start one instance at a time.')
  }

  const { PGlite } = await import('@electric-sql/pglite')
  const { vector } = await import('@electric-sql/pglite-pgvector')
  const { serveOverSocket } = await import('./embedded-socket')
  let pglite: InstanceType<typeof PGlite>
  try {
    pglite = await PGlite.create(join(dataDir, 'pglite'), { extensions: { vector } })
  }
  catch (error) {
    closeSync(fd)
    unlinkSync(ownerPath)
    throw new DatabaseSetupError(
      `The embedded database in ${join(dataDir, 'pglite')} could not be opened: ${(error as Error).message}`,
      'Check the folder is a PGlite data folder that is not damaged; restore it from a backup otherwise (see README, "Where data lives").',
    )
  }
  const server = await serveOverSocket(pglite, { host: '127.0.0.1', port: options.port ?? 0, maxConnections: 64 })
  const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`
  writeSync(fd, JSON.stringify({ pid: process.pid, url } satisfies OwnerRecord))
  closeSync(fd)

  let closed = false
  return {
    url,
    close: async () => {
      if (closed) return
      closed = true
      await server.stop()
      await pglite.close()
      if (existsSync(ownerPath) && readOwner(ownerPath)?.pid === process.pid) unlinkSync(ownerPath)
    },
  }
}
