// Every automate by name. A new automate is one file here plus one crontab line.
import type { AutomateDefinition } from '../layers/health/core/automate'

export const automates: Record<string, () => Promise<AutomateDefinition>> = {
  'lock-guardian': async () => (await import('./lock-guardian')).default,
}

export const automateNames = Object.keys(automates)
