// What must hold after a soak, each with the count it was checked over and its offenders.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { isProcessAlive } from '#db/process'
import { SPAWN_MARKER } from '#layers/spawn/core/processes'
import { readdirSync, readFileSync } from 'node:fs'
import type { ProcessId } from './process-tree'
import { describeTally, standingOf, tally, type InboxState } from './states'

export interface Invariant {
  name: string
  ok: boolean
  /** What it was checked over, e.g. "120 mails". */
  checked: string
  offenders: string[]
}

/** One SIGKILL of a process group: what the group held, and what of it was still running after the grace. */
export interface KillRecord {
  at: number
  service: string
  kind: 'process' | 'database' | 'hub'
  pid: number
  /** The group's processes and its leader's descendants at the kill (leader included). */
  members: ProcessId[]
  /** Those still running when the orphan check ran (null: not checked yet). */
  survivors: ProcessId[] | null
}

/** The spawn ids carried by live processes of this machine (the marker every spawn process inherits). */
export function liveSpawnMarkers(): Map<string, number[]> {
  const found = new Map<string, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const marker = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').find(item => item.startsWith(`${SPAWN_MARKER}=`))
      if (marker && isProcessAlive(Number(entry))) {
        const id = marker.slice(SPAWN_MARKER.length + 1)
        found.set(id, [...(found.get(id) ?? []), Number(entry)])
      }
    }
    catch {
      // The process ended while it was read, or is not ours to read.
    }
  }
  return found
}

const many = (rows: unknown[], limit = 10) => rows.slice(0, limit).map(row => JSON.stringify(row))

/** Every message's tracking state, the one reading the settle loop and the invariants share. */
export async function readInboxStates(db: Db): Promise<Array<InboxState & { messageId: number }>> {
  const rows = await db.execute<{ message_id: number, status: string, intent: string | null, admission: string | null, classify_attempts: number }>(sql`
    select message_id::int, status, intent, admission, classify_attempts from atlas_inbox order by message_id`)
  return rows.map(row => ({
    messageId: row.message_id,
    status: row.status,
    intent: row.intent,
    admission: row.admission,
    classifyAttempts: row.classify_attempts,
  }))
}

export interface InvariantInput {
  delivered: string[]
  /** Message-IDs flagged \Seen in the mailbox at the end (a missing one among them was lost, not late). */
  seenInMailbox: Set<string>
  concurrentSpawnsSeen: string[]
  kills: KillRecord[]
  maxAttempts: number
}

export async function checkInvariants(db: Db, input: InvariantInput): Promise<Invariant[]> {
  const results: Invariant[] = []

  const stored = await db.execute<{ message_id: string, n: number }>(sql`select message_id, count(*)::int as n from atlas_messages group by message_id`)
  const counts = new Map(stored.map(row => [row.message_id, row.n]))
  const missing = input.delivered.filter(id => !counts.has(id))
  const twice = stored.filter(row => row.n > 1).map(row => `${row.message_id} ×${row.n}`)
  const delivered = new Set(input.delivered)
  const strangers = stored.filter(row => !delivered.has(row.message_id)).map(row => row.message_id)
  // \Seen in the mailbox and not stored: the collector flagged it and never stored it, it will never be read again.
  const lost = missing.filter(id => input.seenInMailbox.has(id))
  results.push({
    name: 'every delivered mail stored exactly once',
    ok: missing.length === 0 && twice.length === 0 && strangers.length === 0,
    checked: `${input.delivered.length} mails delivered (by Message-ID), ${stored.length} stored, ${missing.length} missing of which ${lost.length} \\Seen in the mailbox (lost), ${twice.length} stored twice`,
    offenders: [...missing.map(id => lost.includes(id) ? `lost ${id} (\\Seen in the mailbox, never stored)` : `missing ${id} (still unseen)`), ...twice.map(t => `stored ${t}`), ...strangers.map(id => `not delivered ${id}`)].slice(0, 10),
  })

  const inbox = await readInboxStates(db)
  const moving = inbox.map(state => ({ state, ...standingOf(state, input.maxAttempts) })).filter(entry => entry.standing === 'system')
  results.push({
    name: 'every message terminal or waiting for a person',
    ok: moving.length === 0,
    checked: `${inbox.length} messages: ${describeTally(tally(inbox, input.maxAttempts))}`,
    offenders: moving.slice(0, 10).map(entry => `#${entry.state.messageId} ${entry.state.status}: ${entry.why}`),
  })

  const states = await db.execute<{ id: number, status: string, actions: string[] | null, spawns: Array<{ status: string }> | null }>(sql`
    select m.id, i.status,
      (select array_agg(a.action order by a.id) from atlas_audit a where a.message_id = m.id) as actions,
      (select json_agg(json_build_object('status', s.status) order by s.queued_at) from atlas_spawns s where s.message_id = m.id) as spawns
    from atlas_messages m join atlas_inbox i on i.message_id = m.id order by m.id`)
  const untold: string[] = []
  const byState: Record<string, number> = {}
  for (const row of states) {
    byState[row.status] = (byState[row.status] ?? 0) + 1
    const actions = row.actions ?? []
    const spawns = row.spawns ?? []
    const story = storyGap(row.status, actions, spawns)
    if (story) untold.push(`#${row.id} ${row.status}: ${story} [${actions.join(' → ')}]`)
  }
  results.push({
    name: 'every message\'s audit trail telling its story',
    ok: untold.length === 0,
    checked: `${states.length} messages: ${Object.entries(byState).map(([state, n]) => `${n} ${state}`).join(', ')}`,
    offenders: untold.slice(0, 10),
  })

  const overlaps = await db.execute<{ message_id: number, a: string, b: string }>(sql`
    select a.message_id, a.id as a, b.id as b from atlas_spawns a join atlas_spawns b
      on a.message_id = b.message_id and a.id < b.id
      and a.claimed_at is not null and b.claimed_at is not null
      and tstzrange(a.claimed_at, coalesce(a.ended_at, 'infinity')) && tstzrange(b.claimed_at, coalesce(b.ended_at, 'infinity'))`)
  const [spawnCount] = await db.execute<{ n: number, messages: number }>(sql`select count(*)::int as n, count(distinct message_id)::int as messages from atlas_spawns`)
  results.push({
    name: 'no spawn running twice at once for one message',
    ok: overlaps.length === 0 && input.concurrentSpawnsSeen.length === 0,
    checked: `${spawnCount!.n} spawns of ${spawnCount!.messages} messages (claimed→ended intervals, and live processes sampled each second)`,
    offenders: [...many(overlaps), ...input.concurrentSpawnsSeen].slice(0, 10),
  })

  const leases = await db.execute<{ name: string, host: string, pid: number }>(sql`select name, host, pid from ops_locks where expires_at > now()`)
  const [leaseCount] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ops_locks`)
  const deadHeld = leases.filter(lease => !isProcessAlive(lease.pid))
  results.push({
    name: 'no lease held by a dead process',
    ok: deadHeld.length === 0,
    checked: `${leaseCount!.n} lease rows, ${leases.length} unexpired`,
    offenders: many(deadHeld),
  })

  const spawnIds = new Set((await db.execute<{ id: string }>(sql`select id::text as id from atlas_spawns`)).map(row => row.id))
  const orphans = [...liveSpawnMarkers()].filter(([id]) => spawnIds.has(id))
  results.push({
    name: 'no orphan agent process',
    ok: orphans.length === 0,
    checked: `${spawnIds.size} spawns' processes looked for in /proc`,
    offenders: orphans.map(([id, pids]) => `spawn ${id}: pids ${pids.join(',')}`).slice(0, 10),
  })

  const checkedKills = input.kills.filter(kill => kill.survivors !== null)
  const outlived = checkedKills.filter(kill => kill.survivors!.length > 0)
  const withChildren = checkedKills.filter(kill => kill.members.length > 1)
  results.push({
    name: 'nothing of a killed process group outlives the kill',
    ok: outlived.length === 0 && checkedKills.length === input.kills.length,
    checked: `${checkedKills.length} of ${input.kills.length} kills checked, ${withChildren.length} of them of a group with children (${checkedKills.reduce((sum, kill) => sum + kill.members.length, 0)} processes in all)`,
    offenders: [
      ...outlived.map(kill => `kill at t+${kill.at}s of ${kill.service} (pid ${kill.pid}): still running ${kill.survivors!.map(p => `${p.pid} ${p.command}`).join(', ')}`),
      ...input.kills.filter(kill => kill.survivors === null).map(kill => `kill at t+${kill.at}s of ${kill.service}: never checked`),
    ].slice(0, 10),
  })

  const lessons = await db.execute<{ source_spawn_id: string, n: number }>(sql`
    select source_spawn_id::text, count(*)::int as n from learn_lessons where source_spawn_id is not null group by source_spawn_id`)
  const duplicates = lessons.filter(row => row.n > 1)
  results.push({
    name: 'no duplicate lesson',
    ok: duplicates.length === 0,
    checked: `${lessons.reduce((sum, row) => sum + row.n, 0)} lessons from ${lessons.length} spawns`,
    offenders: many(duplicates),
  })
  return results
}

/** Why a message's trail does not tell how it got where it is (null: it does). */
export function storyGap(status: string, actions: string[], spawns: Array<{ status: string }>): string | null {
  const count = (action: string) => actions.filter(a => a === action).length
  const started = count('spawn_started')
  const ended = count('spawn_completed') + count('spawn_failed')
  if (spawns.some(spawn => spawn.status === 'running')) return 'a spawn is still running'
  if (started > ended) return `${started} spawn(s) started, ${ended} ended`
  if (status === 'actioned' && (count('spawn_completed') === 0 || count('actioned') === 0)) return 'actioned without a completed spawn'
  if (spawns.some(spawn => spawn.status === 'lost') && count('spawn_failed') < spawns.filter(spawn => spawn.status === 'lost').length) return 'a lost spawn without its spawn_failed'
  if (['spawn_queued'].includes(status) && !spawns.some(spawn => spawn.status === 'queued')) return 'queued without a queued spawn'
  return null
}
