// Every automate by name. A new automate is one file here plus one crontab line.
import type { AutomateDefinition } from '#layers/health/core/automate'

export const automates: Record<string, () => Promise<AutomateDefinition>> = {
  'lock-guardian': async () => (await import('./lock-guardian')).default,
  'atlas-collect': async () => (await import('./atlas-collect')).default,
  'atlas-calibration': async () => (await import('./atlas-calibration')).default,
  'note-indexer': async () => (await import('./note-indexer')).default,
  'vector-sync': async () => (await import('./vector-sync')).default,
  'atlas-spawn': async () => (await import('./atlas-spawn')).default,
  'atlas-spawn-worker': async () => (await import('./atlas-spawn-worker')).default,
  'learning-classify': async () => (await import('./learning-classify')).default,
  'learning-suggest': async () => (await import('./learning-suggest')).default,
  'learning-debrief': async () => (await import('./learning-debrief')).default,
  'learning-skill-detector': async () => (await import('./learning-skill-detector')).default,
  'learning-proposal-monitor': async () => (await import('./learning-proposal-monitor')).default,
  'health-report': async () => (await import('./health-report')).default,
  'health-snapshot': async () => (await import('./health-snapshot')).default,
  'maintenance-loop': async () => (await import('./maintenance-loop')).default,
  'memory-metrics': async () => (await import('./memory-metrics')).default,
  'memory-hygiene': async () => (await import('./memory-hygiene')).default,
  'agents-dispatch': async () => (await import('./agents-dispatch')).default,
  'nightly-consolidation': async () => (await import('./nightly-consolidation')).default,
}

export const automateNames = Object.keys(automates)
