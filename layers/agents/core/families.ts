// The orbits (atlas-agentic-core.md, "Orbits"): four functional families — the business
// source of truth — and the stored ring, which does not map 1:1 to them. The reactor draws
// its rings from the family, never from the stored column.
// No schema import: the hub's pages import this file (a test checks it agrees with the schema).

export const AGENT_FAMILIES = ['direction', 'cadrage', 'execution', 'validation'] as const
export type AgentFamily = typeof AGENT_FAMILIES[number]

/** The reactor's lookup: direction 1, cadrage and execution 2, validation 3. */
export const REACTOR_RING: Record<AgentFamily, 1 | 2 | 3> = { direction: 1, cadrage: 2, execution: 2, validation: 3 }

/** Each reactor ring's rotation: period in seconds and direction. */
export const RING_MOTION: Record<1 | 2 | 3, { periodS: number, clockwise: boolean, label: string }> = {
  1: { periodS: 60, clockwise: true, label: 'Direction' },
  2: { periodS: 90, clockwise: false, label: 'Scoping + Execution' },
  3: { periodS: 120, clockwise: true, label: 'Validation' },
}

export function isAgentFamily(value: string): value is AgentFamily {
  return (AGENT_FAMILIES as readonly string[]).includes(value)
}

export function reactorRing(family: string): 1 | 2 | 3 {
  return isAgentFamily(family) ? REACTOR_RING[family] : 3
}

export const CODENAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/
export const DOMAIN_PATTERN = /^[a-z0-9][a-z0-9_-]{0,47}$/

/** The prompt domains of a CSV column, trimmed, lower-cased, deduplicated. */
export function parseDomains(csv: string | null | undefined): string[] {
  return [...new Set((csv ?? '').split(',').map(part => part.trim().toLowerCase()).filter(Boolean))]
}
