import cronstrue from 'cronstrue'
// Registers cronstrue's French words (the hub speaks English and French).
import 'cronstrue/locales/fr.js'

// A cron schedule in words ("Every 15 minutes", "Toutes les 15 minutes") in the hub's language;
// the raw expression when it cannot be described.
export function describeCadence(schedule: string, locale: string = hubLocale()): string {
  try {
    return cronstrue.toString(schedule, { use24HourTimeFormat: true, verbose: false, locale })
  }
  catch {
    return schedule
  }
}
