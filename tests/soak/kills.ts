// One kill of the soak: a victim drawn (seeded), its whole process group SIGKILLed, and a
// watch that everything the group held — children, grandchildren, a detached spawn wrapper
// and its sandboxed agent — is gone within the grace.
import type { Victim, VictimKind } from './chaos'
import type { KillRecord } from './invariants'
import { groupAndDescendants, killGroup, stillRunning } from './process-tree'

/** How long a killed group's descendants may take to end (a wrapper's TERM grace, then KILL). */
export const ORPHAN_GRACE_MS = 10_000

/**
 * The victim: drawn uniformly among those running, except that what no kill took yet — a
 * kind (a process, the database, the hub) or a group with children (a worker mid-spawn, say)
 * — is taken when the kills left would not otherwise cover it, so a run long enough covers all.
 * Then, when none running has it now (no worker mid-spawn at this instant), there is no victim:
 * the caller draws again shortly rather than spend one of its last kills on something else.
 */
export function pickVictim(
  victims: Victim[],
  random: () => number,
  killed: KillRecord[],
  killsLeft: number,
  hasChildren: (victim: Victim) => boolean = victim => groupAndDescendants(victim.pgid()!).length > 1,
): Victim | null {
  const alive = victims.filter(victim => victim.pgid() !== null)
  const draw = random()
  if (alive.length === 0) return null
  const uncovered: Array<(victim: Victim) => boolean> = [...new Set(victims.map(victim => victim.kind))]
    .filter(kind => !killed.some(kill => kill.kind === kind))
    .map(kind => (victim: Victim) => victim.kind === kind)
  if (!killed.some(kill => kill.members.length > 1)) uncovered.push(hasChildren)
  if (uncovered.length < killsLeft) return alive[Math.floor(draw * alive.length)]!
  const pool = alive.filter(victim => uncovered.some(wanted => wanted(victim)))
  return pool.length > 0 ? pool[Math.floor(draw * pool.length)]! : null
}

/** Kills the victim's group now; the record's survivors are filled in by the watch it returns. */
export function killVictim(victim: Victim, at: number): { record: KillRecord, watched: Promise<void> } | null {
  const pgid = victim.pgid()
  if (pgid === null) return null
  const members = killGroup(pgid)
  victim.killed?.()
  const record: KillRecord = { at, service: victim.name, kind: victim.kind as VictimKind, pid: pgid, members, survivors: null }
  const watched = (async () => {
    const deadline = Date.now() + ORPHAN_GRACE_MS
    let running = stillRunning(members)
    while (running.length > 0 && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 250))
      running = stillRunning(members)
    }
    record.survivors = running
  })()
  return { record, watched }
}
