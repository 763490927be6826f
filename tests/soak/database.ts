// The soak's database, killed and restarted like any other process: the embedded one (PGlite
// behind the project's socket server, startEmbeddedServer, as `npm start` opens it) run as a
// service of its own on a fixed port, or a native PostgreSQL 15 cluster whose postmaster
// group is killed and started again with pg_ctl (crash recovery first), as systemd would.
import { join } from 'node:path'
import { connectDatabase } from '#db/connection'
import { embeddedPassword, startEmbeddedServer } from '#db/embedded'
import { migrateDatabase } from '#db/migrate'
import { isProcessAlive } from '#db/process'
import { freePort } from '#layers/atlas/tests/fakes/ports'
import { startTestCluster } from '../helpers/pg-cluster'
import { superviseService, type Victim } from './chaos'

export const DATABASE_KINDS = ['embedded', 'native'] as const
export type SoakDatabaseKind = typeof DATABASE_KINDS[number]

export interface SoakDatabase {
  kind: SoakDatabaseKind
  url: string
  /** Where it listens, for the soak's first line. */
  where: string
  victim: Victim
  /** Stops it for good (after the invariants were read). */
  close: () => Promise<void>
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/** Waits until the database answers (a restart takes a second or two; crash recovery may take more). */
export async function waitForDatabase(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    try {
      // connectDatabase checks the server answers; its error says why it does not.
      const probe = await connectDatabase(url, { max: 1 })
      await probe.close()
      return
    }
    catch (error) {
      last = (error as Error).message
    }
    await sleep(300)
  }
  throw new Error(`the soak's database did not answer within ${timeoutMs / 1000} s: ${last}`)
}

async function startEmbedded(base: string, logDir: string): Promise<SoakDatabase> {
  const dataDir = join(base, 'embedded')
  const port = await freePort()
  // Migrated once in this process, then served by the service the soak kills.
  const first = await startEmbeddedServer(dataDir, { port, log: () => {} })
  const migrating = await connectDatabase(first.url, { max: 2, kind: 'embedded' })
  try {
    await migrateDatabase(migrating)
  }
  finally {
    await migrating.close()
    await first.close()
  }
  const service = superviseService({ name: 'database', kind: 'database', script: 'tests/soak/embedded-db.ts', args: ['--data-dir', dataDir, '--port', String(port)], restartDelayMs: 1000 }, {}, join(logDir, 'database.log'))
  const url = `postgres://postgres:${encodeURIComponent(embeddedPassword(dataDir))}@127.0.0.1:${port}/postgres`
  await waitForDatabase(url, 60_000)
  return { kind: 'embedded', url, where: `embedded PGlite on 127.0.0.1:${port} (${dataDir})`, victim: service, close: service.stop }
}

async function startNative(log: (line: string) => void): Promise<SoakDatabase> {
  const cluster = await startTestCluster('soak')
  let starts = 1
  let restarting: Promise<void> | null = null
  const victim: Victim = {
    name: 'database',
    kind: 'database',
    // Not killable while it is coming back: a supervisor's restart is one at a time.
    pgid: () => restarting ? null : cluster.postmasterPid(),
    killed: () => {
      const killedPid = cluster.postmasterPid()
      restarting = (async () => {
        // The group is gone in a moment; pg_ctl start refuses while the old postmaster lives.
        for (let i = 0; i < 50 && killedPid && isProcessAlive(killedPid); i++) await sleep(100)
        // As systemd's Restart=always with RestartSec=1: tried again until it starts (a start
        // right after the kill may still find the old lock file's owner, and say so).
        for (let attempt = 1; ; attempt++) {
          await sleep(1000)
          try {
            await cluster.start()
            starts += 1
            return
          }
          catch (error) {
            log(`[soak] restarting the native database, attempt ${attempt}, failed: ${(error as Error).message.split('\n').slice(-3).join(' ')}`)
            if (attempt >= 30) throw error
          }
        }
      })().catch(error => log(`[soak] the native database could not be restarted: ${(error as Error).message}`)).finally(() => {
        restarting = null
      })
    },
    starts: () => starts,
    stop: async () => {
      await restarting
    },
  }
  return {
    kind: 'native',
    url: cluster.url,
    where: `native PostgreSQL 15 on 127.0.0.1:${cluster.port}`,
    victim,
    close: async () => {
      await restarting
      try {
        cluster.stop()
      }
      catch (error) {
        // Its folder is removed whatever the answer (pg-cluster.ts); a server already down answers an error here.
        log(`[soak] stopping the native database: ${(error as Error).message.split('\n')[0]}`)
      }
    },
  }
}

export async function startSoakDatabase(
  kind: SoakDatabaseKind,
  base: string,
  logDir: string,
  log: (line: string) => void,
): Promise<SoakDatabase> {
  return kind === 'embedded' ? await startEmbedded(base, logDir) : await startNative(log)
}
