// The spawn engine's lease rows (ops_locks, see layers/health/core/leases.ts): one per message
// being queued or spawned (the anti-race lock: a second orchestrator or worker finds it
// held), and the concurrency slots (global, and per host). Held leases are heartbeated; an
// expired one is free for the taking, which is how a dead worker's message comes back.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { acquireLease, heartbeatLease, releaseLease, type LeaseOwner } from '#layers/health/core/leases'

export const messageLeaseName = (messageId: number) => `atlas-spawn:message:${messageId}`
export const globalSlotName = (n: number) => `atlas-spawn:slot:${n}`
export const hostSlotName = (host: string, n: number) => `atlas-spawn:host:${host}:${n}`

export interface HeldLease {
  name: string
  holder: string
}

/** The first free slot among `count` (names from `nameOf`), or null when all are held. */
export async function acquireSlot(
  db: Db,
  nameOf: (n: number) => string,
  count: number,
  owner: LeaseOwner,
  ttlMs: number,
): Promise<HeldLease | null> {
  for (let n = 0; n < count; n++) {
    const name = nameOf(n)
    if (await acquireLease(db, name, owner, ttlMs)) return { name, holder: owner.holder }
  }
  return null
}

export async function releaseAll(db: Db, leases: Array<HeldLease | null | undefined>): Promise<void> {
  for (const lease of leases) {
    // Best effort, deliberately quiet: a lease left behind expires after its time to live, or
    // is taken at once from a holder that is gone on this host (acquireLease).
    if (lease) await releaseLease(db, lease.name, lease.holder).catch(() => {})
  }
}

export interface LeaseKeeper {
  stop: () => void
  /** Aborted when one of the leases was lost (expired and taken by someone else). */
  lost: AbortSignal
}

/**
 * Heartbeats the leases every third of their time to live; `onBeat` runs at each beat. A
 * missed beat is retried at the next one; when none has succeeded for a whole time to live
 * (the database unreachable), the leases count as lost: another worker may take the message
 * by now, so this one must stop its agent.
 */
export function keepLeases(db: Db, leases: HeldLease[], ttlMs: number, onBeat?: () => Promise<void>, now = () => Date.now()): LeaseKeeper {
  const controller = new AbortController()
  let lastBeat = now()
  const timer = setInterval(() => {
    void (async () => {
      let beaten = true
      for (const lease of leases) {
        try {
          if (!await heartbeatLease(db, lease.name, lease.holder, ttlMs)) controller.abort(new Error(`lease ${lease.name} lost`))
        }
        catch {
          beaten = false
        }
      }
      if (beaten) lastBeat = now()
      else if (now() - lastBeat >= ttlMs) controller.abort(new Error(`no heartbeat reached the database for ${Math.round(ttlMs / 1000)} s: the leases have expired`))
      // onBeat touches the queue job; a missed touch is retried at the next beat, and the
      // leases above, not the job, decide whether this worker may go on.
      await onBeat?.().catch(() => {})
    })()
  }, Math.max(200, Math.floor(ttlMs / 3)))
  return { stop: () => clearInterval(timer), lost: controller.signal }
}

export interface LeaseRow {
  name: string
  holder: string
  host: string
  pid: number
  acquiredAt: Date
  heartbeatAt: Date
  expiresAt: Date
  expired: boolean
}

export async function readLeases(db: Db, prefix: string): Promise<LeaseRow[]> {
  const rows = await db.execute<{ name: string, holder: string, host: string, pid: number, acquired_at: string | Date, heartbeat_at: string | Date, expires_at: string | Date, expired: boolean }>(sql`
    select name, holder, host, pid, acquired_at, heartbeat_at, expires_at, expires_at < now() as expired
    from ops_locks where starts_with(name, ${prefix}) order by name`)
  return rows.map(row => ({
    name: row.name,
    holder: row.holder,
    host: row.host,
    pid: row.pid,
    acquiredAt: new Date(row.acquired_at),
    heartbeatAt: new Date(row.heartbeat_at),
    expiresAt: new Date(row.expires_at),
    expired: row.expired,
  }))
}
