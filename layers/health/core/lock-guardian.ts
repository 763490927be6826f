// The lock guardian: a lease held more than 10 minutes without heartbeat, or whose holder
// process is gone, raises an alert row (once per holder) and a message to the internal team.
// An alert whose message did not go out (mail down, not configured) is sent again at the next
// runs, for a day, until it does.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { OpsAlert, OpsLock } from '#db/schema/index'
import { RETELL_FOR_MS, RETOLD_KINDS } from './alert-retell'

export { isProcessAlive } from '#db/process'

export const STALE_AFTER_MS = 10 * 60_000

export interface LockGuardianDeps {
  db: Db
  /** This machine's name: only holders on it can be checked for liveness. */
  host: string
  isProcessAlive: (pid: number) => boolean
  /** True once the team was told; false or a throw leaves the alert to be told again. */
  notifyTeam: (alert: OpsAlert) => Promise<boolean>
  now: () => Date
  log?: (line: string) => void
}

export interface ZombieLease {
  lock: OpsLock
  why: 'stale' | 'holder_gone'
  message: string
}

export function findZombies(locks: OpsLock[], deps: Pick<LockGuardianDeps, 'host' | 'isProcessAlive' | 'now'>, staleAfterMs = STALE_AFTER_MS): ZombieLease[] {
  const now = deps.now().getTime()
  const zombies: ZombieLease[] = []
  for (const lock of locks) {
    const silentMs = now - lock.heartbeatAt.getTime()
    if (lock.host === deps.host && !deps.isProcessAlive(lock.pid)) {
      zombies.push({ lock, why: 'holder_gone', message: `Lease ${lock.name} is held by process ${lock.pid} on ${lock.host}, which no longer exists.` })
    }
    else if (silentMs > staleAfterMs) {
      zombies.push({ lock, why: 'stale', message: `Lease ${lock.name} (${lock.host}:${lock.pid}) has had no heartbeat for ${Math.round(silentMs / 60_000)} minutes.` })
    }
  }
  return zombies
}

export interface GuardReport {
  checked: number
  zombies: ZombieLease[]
  newAlerts: OpsAlert[]
  /** Alerts the team was told of in this run (new ones and earlier ones not sent before). */
  told: OpsAlert[]
}

export async function guardLocks(deps: LockGuardianDeps, options: { dryRun?: boolean, staleAfterMs?: number } = {}): Promise<GuardReport> {
  const locks = await deps.db.query.opsLocks.findMany()
  const zombies = findZombies(locks, deps, options.staleAfterMs)
  const newAlerts: OpsAlert[] = []
  const told: OpsAlert[] = []
  if (options.dryRun) return { checked: locks.length, zombies, newAlerts, told }
  for (const zombie of zombies) {
    const details = {
      lock: zombie.lock.name, why: zombie.why, host: zombie.lock.host, pid: zombie.lock.pid,
      acquiredAt: zombie.lock.acquiredAt.toISOString(), heartbeatAt: zombie.lock.heartbeatAt.toISOString(),
    }
    const rows = await deps.db.execute<Record<string, unknown>>(sql`
      insert into ops_alerts (kind, subject, holder, message, details)
      values ('zombie_lease', ${zombie.lock.name}, ${zombie.lock.holder}, ${zombie.message}, ${JSON.stringify(details)}::jsonb)
      on conflict (kind, subject, holder) do nothing
      returning id`)
    const id = rows[0]?.id
    if (id === undefined) continue
    const alert = await deps.db.query.opsAlerts.findFirst({ where: (alerts, { eq }) => eq(alerts.id, Number(id)) })
    if (alert) newAlerts.push(alert)
  }
  const since = new Date(deps.now().getTime() - RETELL_FOR_MS)
  const untold = await deps.db.query.opsAlerts.findMany({
    where: (alerts, { and, gt, inArray, isNull }) =>
      and(inArray(alerts.kind, [...RETOLD_KINDS]), isNull(alerts.notifiedAt), gt(alerts.raisedAt, since)),
    orderBy: (alerts, { asc }) => asc(alerts.id),
  })
  for (const alert of untold) {
    let delivered = false
    try {
      delivered = await deps.notifyTeam(alert)
    }
    catch (error) {
      deps.log?.(`alert #${alert.id} not sent (${(error as Error).message}); tried again at the next run`)
    }
    if (!delivered) continue
    await deps.db.execute(sql`update ops_alerts set notified_at = now() where id = ${alert.id}`)
    told.push(alert)
  }
  return { checked: locks.length, zombies, newAlerts, told }
}
