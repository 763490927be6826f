// The words and colours the health page shows for dimensions and statuses.
import type { HealthDimensionKey, HealthStatus } from '#db/schema/health'

export const DIMENSION_LABELS: Record<HealthDimensionKey, string> = {
  proprioception: 'Proprioception',
  coverage: 'Coverage',
  debt: 'Debt',
  learning: 'Learning',
  automations: 'Automations',
}

export const DIMENSION_COLORS: Record<HealthDimensionKey, string> = {
  proprioception: '#6366f1',
  coverage: '#0ea5e9',
  debt: '#f97316',
  learning: '#10b981',
  automations: '#e11d48',
}

export const STATUS_COLORS: Record<HealthStatus, 'success' | 'warning' | 'error' | 'neutral'> = {
  ok: 'success',
  warning: 'warning',
  critical: 'error',
  unknown: 'neutral',
}

/** The dimensions in the report's order (the schema's HEALTH_DIMENSIONS, without pulling drizzle into the page). */
export const DIMENSION_KEYS = Object.keys(DIMENSION_LABELS) as HealthDimensionKey[]
