// The vector index's source types, the recall scopes over them and where each source is
// shown in the hub.
import { MEM_SOURCE_TYPES, type MemSourceType } from '#db/schema/mem'

export { MEM_SOURCE_TYPES as SOURCE_TYPES, type MemSourceType as SourceType }

export const SOURCE_LABELS: Record<MemSourceType, string> = {
  scar: 'Scars',
  victory: 'Victories',
  reflex: 'Reflex memory',
  note: 'Knowledge base',
  doctrine: 'Doctrines',
  project: 'Projects',
  agent: 'Agents',
  drill: 'Drills',
  procedure: 'Procedures',
  iteration: 'ReAct iterations',
  skill: 'Skills',
}

/** Scope names of the seed ("iteration history, scars, victories, reference memory, …") → types. */
export const SCOPE_ALIASES: Record<string, MemSourceType> = {
  scars: 'scar',
  victories: 'victory',
  reference: 'reflex',
  notes: 'note',
  kb: 'note',
  doctrines: 'doctrine',
  projects: 'project',
  work: 'project',
  agents: 'agent',
  drills: 'drill',
  procedures: 'procedure',
  protocols: 'procedure',
  iterations: 'iteration',
  history: 'iteration',
  skills: 'skill',
}

export function isSourceType(value: string): value is MemSourceType {
  return (MEM_SOURCE_TYPES as readonly string[]).includes(value)
}

export class ScopeError extends Error {
  readonly code = 'bad_scope'
  constructor(message: string) {
    super(message)
    this.name = 'ScopeError'
  }
}

/**
 * `all` (or nothing) → every type; otherwise a comma-separated list of source types or
 * their plural / seed names (`scars,doctrine`). Unknown names are refused.
 */
export function parseScope(scope: string | undefined | null): MemSourceType[] {
  const text = (scope ?? '').trim().toLowerCase()
  if (text === '' || text === 'all') return [...MEM_SOURCE_TYPES]
  const types = new Set<MemSourceType>()
  for (const raw of text.split(',')) {
    const name = raw.trim()
    if (!name) continue
    const type = isSourceType(name) ? name : SCOPE_ALIASES[name]
    if (!type) throw new ScopeError(`unknown scope "${name}": use all, or one or more of ${MEM_SOURCE_TYPES.join(', ')} (comma-separated)`)
    types.add(type)
  }
  if (types.size === 0) throw new ScopeError('empty scope: use all, or one or more source types')
  return MEM_SOURCE_TYPES.filter(type => types.has(type))
}

/**
 * The hub page showing a source, when there is one. Lessons, doctrines, drills, procedures,
 * reflexes, projects and iterations have no page showing them yet (the learning and worksites
 * pages are still placeholders): no link rather than one to a page without the item.
 */
export function sourceLink(type: MemSourceType, id: string): string | null {
  const ref = encodeURIComponent(id)
  switch (type) {
    case 'note': return `/hub/memory/vault?note=${ref}`
    case 'agent': return `/hub/agents/${ref}`
    case 'skill': return `/hub/skills/${ref}`
    default: return null
  }
}
