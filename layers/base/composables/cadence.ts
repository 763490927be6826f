import cronstrue from 'cronstrue'

// A cron schedule in words ("Every 15 minutes"); the raw expression when it cannot be described.
export function describeCadence(schedule: string): string {
  try {
    return cronstrue.toString(schedule, { use24HourTimeFormat: true, verbose: false })
  }
  catch {
    return schedule
  }
}
