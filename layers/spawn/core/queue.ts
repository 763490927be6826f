// The spawn job queue: pg-boss on the same PostgreSQL (schema `pgboss`, installed by a
// migration). One job per message (singletonKey, `exclusive` policy: one queued or active
// job per key), no automatic retry (the orchestrator's recovery decides), an expiry covering
// the agent's timeout, the deploy and the QA, and a heartbeat the worker keeps while it runs.
// The same code runs on the embedded PGlite (over its socket) and on native PostgreSQL.
import { PgBoss, type Job } from 'pg-boss'
import { SPAWN_QUEUE } from './config'

export { SPAWN_QUEUE }

export interface SpawnJobData {
  spawnId: string
  messageId: number
  iteration: number
}

export interface SpawnJob {
  id: string
  data: SpawnJobData
  retryCount: number
}

/** What the engine needs of the queue (tests and benchmarks may bring their own). */
export interface SpawnQueue {
  send: (data: SpawnJobData, options: { expireInSeconds: number, heartbeatSeconds: number }) => Promise<string | null>
  fetch: () => Promise<SpawnJob | null>
  complete: (job: SpawnJob, output?: Record<string, unknown>) => Promise<void>
  fail: (jobId: string, output?: Record<string, unknown>) => Promise<void>
  touch: (job: SpawnJob) => Promise<void>
  /** The job's state (created, retry, active, completed, cancelled, failed), null when unknown. */
  state: (jobId: string) => Promise<string | null>
  stop: () => Promise<void>
}

export interface SpawnQueueOptions {
  connectionString: string
  /** Runs pg-boss maintenance (expiry, heartbeat monitor) in this process. */
  supervise?: boolean
  log?: (line: string) => void
}

export async function openSpawnQueue(options: SpawnQueueOptions): Promise<SpawnQueue> {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    max: 3,
    application_name: 'synedre-atlas-spawn',
    // The schema and the queue are installed by the migration (db/migrations/*atlas_spawn_events_view_queue*).
    migrate: false,
    createSchema: false,
    supervise: options.supervise ?? false,
    schedule: false,
    registerInstance: false,
    openTelemetry: { enabled: false },
  })
  boss.on('error', error => options.log?.(`[pg-boss] ${(error as Error).message}`))
  await boss.start()
  if (!await boss.getQueue(SPAWN_QUEUE)) {
    await boss.createQueue(SPAWN_QUEUE, { policy: 'exclusive', retryLimit: 0 }).catch(async (error: unknown) => {
      if (!await boss.getQueue(SPAWN_QUEUE)) throw error
    })
  }
  const attempt = (job: SpawnJob) => ({ id: job.id, retryCount: job.retryCount })
  return {
    send: async (data, sendOptions) => await boss.send(SPAWN_QUEUE, data, {
      singletonKey: `message:${data.messageId}`,
      retryLimit: 0,
      expireInSeconds: sendOptions.expireInSeconds,
      heartbeatSeconds: Math.max(10, sendOptions.heartbeatSeconds),
    }),
    fetch: async () => {
      const [job] = await boss.fetch<SpawnJobData>(SPAWN_QUEUE, { batchSize: 1 }) as Array<Job<SpawnJobData>>
      return job ? { id: job.id, data: job.data, retryCount: job.retryCount } : null
    },
    complete: async (job, output) => {
      await boss.complete(SPAWN_QUEUE, attempt(job), output ?? null)
    },
    fail: async (jobId, output) => {
      await boss.fail(SPAWN_QUEUE, jobId, output ?? null)
    },
    touch: async (job) => {
      await boss.touch(SPAWN_QUEUE, attempt(job))
    },
    state: async (jobId) => {
      const [found] = await boss.findJobs(SPAWN_QUEUE, { id: jobId })
      return found?.state ?? null
    },
    stop: async () => {
      await boss.stop({ graceful: false, close: true, timeout: 5000 })
    },
  }
}
