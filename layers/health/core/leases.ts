// Lease locks on ops_locks: claimed by one atomic statement, heartbeated while held,
// free for the taking once expired — or at once when its holder is a dead process on this
// very host (the lease records host and pid): a SIGKILLed worker's lease does not hold the
// next run back until it expires. The same on PGlite and on PostgreSQL.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { isProcessAlive } from '#db/process'
import type { OpsLock } from '#db/schema/index'

export interface LeaseOwner {
  /** Unique per acquisition: a restarted process never mistakes an old lease for its own. */
  holder: string
  host: string
  pid: number
}

/** Is this process alive on this host (a zombie counts as dead; EPERM: alive, another user's)? */
export const processAlive = isProcessAlive

export interface AcquireOptions {
  /** How a holder on this host is known dead (default: no such process). */
  isAlive?: (pid: number) => boolean
}

export async function acquireLease(db: Db, name: string, owner: LeaseOwner, ttlMs: number, options: AcquireOptions = {}): Promise<boolean> {
  if (await claimLease(db, name, owner, ttlMs)) return true
  return await takeFromDeadHolder(db, name, owner, ttlMs, options.isAlive ?? processAlive)
}

/**
 * A held lease whose holder ran on this host and is gone is taken at once. Conditional on the
 * very holder read, so two takers race fairly; a pid reused by another process reads as alive
 * (the lease then waits for its expiry, the safe side).
 */
async function takeFromDeadHolder(
  db: Db,
  name: string,
  owner: LeaseOwner,
  ttlMs: number,
  isAlive: (pid: number) => boolean,
): Promise<boolean> {
  const held = await readLease(db, name)
  if (!held || held.host !== owner.host || held.pid === process.pid || isAlive(held.pid)) return false
  const rows = await db.execute<{ holder: string }>(sql`
    update ops_locks set holder = ${owner.holder}, host = ${owner.host}, pid = ${owner.pid},
      acquired_at = now(), heartbeat_at = now(), expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    where name = ${name} and holder = ${held.holder}
    returning holder`)
  return rows[0]?.holder === owner.holder
}

async function claimLease(db: Db, name: string, owner: LeaseOwner, ttlMs: number): Promise<boolean> {
  const rows = await db.execute<{ holder: string }>(sql`
    insert into ops_locks (name, holder, host, pid, acquired_at, heartbeat_at, expires_at)
    values (${name}, ${owner.holder}, ${owner.host}, ${owner.pid}, now(), now(), now() + make_interval(secs => ${ttlMs / 1000}))
    on conflict (name) do update
      set holder = excluded.holder, host = excluded.host, pid = excluded.pid,
          acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
      where ops_locks.expires_at < now()
    returning holder`)
  return rows[0]?.holder === owner.holder
}

/** Extends the lease; false when it was lost (expired and taken by another holder). */
export async function heartbeatLease(db: Db, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const rows = await db.execute<{ name: string }>(sql`
    update ops_locks set heartbeat_at = now(), expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    where name = ${name} and holder = ${holder}
    returning name`)
  return rows.length === 1
}

export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.execute(sql`delete from ops_locks where name = ${name} and holder = ${holder}`)
}

export async function readLease(db: Db, name: string): Promise<OpsLock | undefined> {
  return await db.query.opsLocks.findFirst({ where: (locks, { eq }) => eq(locks.name, name) })
}
