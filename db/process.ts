import { readFileSync } from 'node:fs'

/**
 * True when a process with this id is alive on this machine: EPERM (another user's) counts as
 * alive, a zombie (killed, waiting for its reaper) as dead.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  }
  catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  }
  catch {
    // No /proc/<pid> on Linux: it ended between the two checks. Elsewhere there is no /proc.
    return process.platform !== 'linux'
  }
}
