// Runs crontab entries at their cadence inside one process (the `npm start` supervisor).
// Overlap across processes and hosts is prevented by the lease in the supervision
// wrapper; `protect` only avoids piling up launches inside this process.
import { Cron } from 'croner'
import type { CrontabEntry } from './crontab'

export interface SchedulerDeps {
  /** Starts the entry's automate and resolves with its exit code. */
  launch: (entry: CrontabEntry) => Promise<number>
  log: (line: string) => void
}

export interface Scheduler {
  /** Launches every entry now (once), e.g. for `--once`; resolves when all are done. */
  runAll: () => Promise<number[]>
  nextRuns: () => Array<{ automation: string, next: Date | null }>
  stop: () => Promise<void>
}

export function startScheduler(entries: CrontabEntry[], deps: SchedulerDeps, options: { paused?: boolean } = {}): Scheduler {
  const running = new Set<Promise<number>>()
  const launch = (entry: CrontabEntry) => {
    const run = deps.launch(entry).catch((error: unknown) => {
      deps.log(`[supervisor] ${entry.automation} could not be launched: ${(error as Error).message}`)
      return 1
    })
    running.add(run)
    void run.finally(() => running.delete(run))
    return run
  }
  const jobs = entries.map(entry => ({
    entry,
    cron: new Cron(entry.schedule, { mode: '5-part', legacyMode: true, protect: true, paused: options.paused ?? false }, () => { void launch(entry) }),
  }))
  return {
    runAll: () => Promise.all(entries.map(launch)),
    nextRuns: () => jobs.map(({ entry, cron }) => ({ automation: entry.automation, next: cron.nextRun() })),
    stop: async () => {
      for (const { cron } of jobs) cron.stop()
      await Promise.allSettled([...running])
    },
  }
}
