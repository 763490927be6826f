// The test-only pause of a collector cycle (ATLAS_COLLECT_PAUSE_AT): the soak and crash tests
// kill the process while it waits at a named point.
import type { AtlasConfig } from './config'

/** The one reading of the test-only pause (ATLAS_COLLECT_PAUSE_AT, parsed in config.ts). */
export function createCheckpoint(pauseAt: AtlasConfig['pauseAt'], log: (line: string) => void): (point: string) => Promise<void> {
  const counts = new Map<string, number>()
  return async (point) => {
    if (!pauseAt || pauseAt.point !== point) return
    const count = (counts.get(point) ?? 0) + 1
    counts.set(point, count)
    if (count !== pauseAt.occurrence) return
    log(`[atlas-collect] paused at ${point}@${count} (ATLAS_COLLECT_PAUSE_AT): waiting to be killed`)
    await new Promise<never>(() => {})
  }
}
