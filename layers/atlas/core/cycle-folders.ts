// Each cycle keeps its attachment files in its own temporary folder, named after its process.
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { isProcessAlive } from '#db/process'

export const CYCLE_PREFIX = 'atlas-cycle-'

/** Folders of cycles whose process died (killed before its `finally`): removed, they hold mail attachments. */
export function removeDeadCycleFolders(tmpDir: string, log: (line: string) => void): number {
  let removed = 0
  let entries: string[]
  try {
    entries = readdirSync(tmpDir)
  }
  catch {
    return 0
  }
  for (const entry of entries) {
    const pid = Number(new RegExp(`^${CYCLE_PREFIX}(\\d+)-`).exec(entry)?.[1])
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue
    rmSync(join(tmpDir, entry), { recursive: true, force: true })
    removed += 1
  }
  if (removed > 0) log(`[atlas-collect] removed ${removed} attachment folder(s) left by a collector that died mid-cycle`)
  return removed
}
