// Each spawn under a uid of its own when the worker is root (SPAWN_AGENT_UIDS, a numeric
// range no account of the machine uses): its folder is that uid's, mode 0700, so one
// tenant's folder is unreadable from another tenant's spawn even if its path leaked.
// A uid is reserved by a file created exclusively (<SPAWN_ROOT>/.uids/<uid>, atomic across
// workers of the machine) and freed once the spawn's folder is handed back to the worker and
// no process runs under it. A worker that dies mid-spawn leaves its reservation: that uid is
// never reused on its own (its folder may still be the uid's); an operator removes the
// reservation with the folder.
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AtlasConfigError, type AtlasEnv } from './env'
import type { AgentUser } from './workspace'

export interface UidRange { first: number, last: number }

/** Far above people's uids, rootless containers' subuids and systemd's dynamic ranges, below 2^31. */
export const DEFAULT_AGENT_UIDS: UidRange = { first: 2_000_000_000, last: 2_000_065_535 }

/** SPAWN_AGENT_UIDS: `first-last`, or `none` (every spawn runs as SPAWN_AGENT_USER). */
export function readAgentUids(env: AtlasEnv): UidRange | null {
  const raw = env.SPAWN_AGENT_UIDS?.trim()
  if (!raw) return DEFAULT_AGENT_UIDS
  if (raw === 'none') return null
  const match = /^(\d+)-(\d+)$/.exec(raw)
  const first = Number(match?.[1])
  const last = Number(match?.[2])
  if (!match || first < 1000 || last < first || last > 4_294_967_294) {
    throw new AtlasConfigError('SPAWN_AGENT_UIDS', `expected a range "first-last" of uids (1000 ≤ first ≤ last < 2^32-1), or none; got "${raw}"`)
  }
  return { first, last }
}

function reservations(root: string): string {
  const dir = join(root, '.uids')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/** A uid of the range for this spawn, reserved; the probe starts where the spawn's id hashes. */
export function allocateSpawnUid(range: UidRange, root: string, spawnId: string): AgentUser {
  const dir = reservations(root)
  const size = range.last - range.first + 1
  const start = createHash('sha256').update(spawnId).digest().readUInt32BE(0) % size
  for (let step = 0; step < size; step++) {
    const uid = range.first + ((start + step) % size)
    try {
      writeFileSync(join(dir, String(uid)), `${spawnId}\n`, { flag: 'wx', mode: 0o600 })
      return { name: `spawn-uid-${uid}`, uid, gid: uid }
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  throw new Error(`no free uid in SPAWN_AGENT_UIDS ${range.first}-${range.last} (${readdirSync(dir).length} reserved under ${dir})`)
}

/** Pids of the live processes (zombies hold nothing) whose real or effective uid is this one. */
export function processesOfUid(uid: number, procDir = '/proc'): number[] {
  const found: number[] = []
  for (const name of readdirSync(procDir)) {
    if (!/^\d+$/.test(name)) continue
    try {
      const status = readFileSync(join(procDir, name, 'status'), 'utf8').split('\n')
      if (/^State:\s+[ZX]/.test(status.find(l => l.startsWith('State:')) ?? '')) continue
      const line = status.find(l => l.startsWith('Uid:'))
      if (line?.split(/\s+/).slice(1, 3).includes(String(uid))) found.push(Number(name))
    }
    catch { /* the process ended meanwhile */ }
  }
  return found
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function survivorsAfter(uid: number, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms
  let left = processesOfUid(uid)
  while (left.length && Date.now() < deadline) {
    await sleep(50)
    left = processesOfUid(uid)
  }
  return left
}

/**
 * Frees the spawn's uid (its folder already handed back or removed). Whatever still runs under
 * it is the spawn's and nobody else's (a sandbox's last processes ending with their namespace):
 * given the grace, then killed. A process that survives even that keeps the uid reserved.
 */
export async function releaseSpawnUid(root: string, user: AgentUser, log: (line: string) => void, graceMs = 2000): Promise<boolean> {
  let survivors = await survivorsAfter(user.uid, graceMs)
  if (survivors.length) {
    log(`[atlas-spawn-worker] uid ${user.uid}: processes ${survivors.join(', ')} outlived the spawn; killed`)
    for (const pid of survivors) {
      try {
        process.kill(pid, 'SIGKILL')
      }
      catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') log(`[atlas-spawn-worker] uid ${user.uid}: process ${pid} could not be killed: ${(error as Error).message}`)
      }
    }
    survivors = await survivorsAfter(user.uid, 2000)
  }
  if (survivors.length) {
    log(`[atlas-spawn-worker] uid ${user.uid} stays reserved: processes ${survivors.join(', ')} still run under it`)
    return false
  }
  rmSync(join(reservations(root), String(user.uid)), { force: true })
  return true
}
