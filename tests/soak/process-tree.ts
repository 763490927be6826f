// Processes as /proc shows them, to kill a process group and prove nothing of it outlives
// the kill: the group's members and every descendant of its leader (a worker's spawn wrapper
// runs detached, its agent in a new session under bubblewrap: outside the group, they must
// still end, by the wrapper's watch on its parent and bwrap's --die-with-parent).
import { readdirSync, readFileSync } from 'node:fs'

/** A process named by its pid and start time (a pid reused by a newer process is another one). */
export interface ProcessId { pid: number, startedAt: number, command: string }

interface ProcStat extends ProcessId { ppid: number, pgid: number, zombie: boolean }

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command is in parentheses and may hold spaces: the fields follow the last ')'.
    const close = stat.lastIndexOf(')')
    const fields = stat.slice(close + 2).split(' ')
    return { pid, command: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(fields[1]), pgid: Number(fields[2]), startedAt: Number(fields[19]), zombie: fields[0] === 'Z' }
  }
  catch {
    // Ended between the listing and the read.
    return null
  }
}

function liveStats(): ProcStat[] {
  return readdirSync('/proc').filter(name => /^\d+$/.test(name)).map(name => readStat(Number(name))).filter((stat): stat is ProcStat => stat !== null && !stat.zombie)
}

/** The group `pgid` and every descendant of its leader, wherever their group or session. */
export function groupAndDescendants(pgid: number): ProcessId[] {
  const stats = liveStats()
  const found = new Map<number, ProcStat>()
  for (const stat of stats) if (stat.pgid === pgid || stat.pid === pgid) found.set(stat.pid, stat)
  // Descendants by parent links, to a fixed point (a child may be listed before its parent).
  let grew = true
  while (grew) {
    grew = false
    for (const stat of stats) {
      if (!found.has(stat.pid) && found.has(stat.ppid)) {
        found.set(stat.pid, stat)
        grew = true
      }
    }
  }
  return [...found.values()].map(({ pid, startedAt, command }) => ({ pid, startedAt, command }))
}

/** Those of `processes` still running (same pid and start time, not a zombie). */
export function stillRunning(processes: ProcessId[]): ProcessId[] {
  return processes.filter((process) => {
    const stat = readStat(process.pid)
    return stat !== null && !stat.zombie && stat.startedAt === process.startedAt
  })
}

/** SIGKILL to the whole group `pgid` (its leader was started detached); what it held, counted before. */
export function killGroup(pgid: number): ProcessId[] {
  const members = groupAndDescendants(pgid)
  try {
    process.kill(-pgid, 'SIGKILL')
  }
  catch (error) {
    // ESRCH: the group ended on its own just before; anything else is the soak's own fault.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
  return members
}
