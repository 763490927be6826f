// Routing a piece of work to ONE agent of the registry, from its prompt domain. The
// candidates are those of `GET /api/agents?domain=…` (agentsForDomain: active agents whose
// CSV of prompt domains holds the domain); several may match, so the tie-break is:
//   1. the agent for which the domain comes earliest in its own CSV (its primary trade: a
//      `question` goes to analyse-besoin, whose first domain it is, before the orchestrator),
//   2. then auto-spawn agents (the roster marks the ones meant to be spawned headless),
//   3. then the inner ring (lower stored `orbite`), then the oldest row (lowest id).
// No candidate (an unknown or unserved domain, or a domain that is not a valid one) → the
// fallback agent, the orchestrator, when it is active; null when even that is missing (the
// roster was never seeded): the caller logs it and goes on unrouted.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents } from '#db/schema/agents'
import { DOMAIN_PATTERN } from './families'
import { agentsForDomain, type AgentSummary } from './registry'

/** The agent that takes what no domain claims. */
export const FALLBACK_AGENT = 'orchestrator'

export interface RoutedAgent {
  codename: string
  /** The domain asked, normalised (lower-case, trimmed). */
  domain: string
  /** true when no active agent serves the domain and the fallback agent was chosen. */
  fallback: boolean
  /** How many active agents served the domain. */
  candidates: number
}

/** The tie-break, as a comparator over the candidates of one domain. */
export function compareCandidates(domain: string) {
  const position = (agent: Pick<AgentSummary, 'domains'>) => {
    const index = agent.domains.indexOf(domain)
    return index < 0 ? Number.MAX_SAFE_INTEGER : index
  }
  return (a: Pick<AgentSummary, 'autoSpawn' | 'domains' | 'orbite' | 'id'>, b: Pick<AgentSummary, 'autoSpawn' | 'domains' | 'orbite' | 'id'>) =>
    position(a) - position(b) || Number(b.autoSpawn) - Number(a.autoSpawn) || a.orbite - b.orbite || a.id - b.id
}

/** The one agent for a domain (tie-break above), or the fallback agent; null when neither exists. */
export async function routeAgent(db: Db, rawDomain: string | null | undefined): Promise<RoutedAgent | null> {
  const domain = (rawDomain ?? '').trim().toLowerCase()
  const candidates = DOMAIN_PATTERN.test(domain) ? await agentsForDomain(db, domain) : []
  if (candidates.length > 0) {
    const [best] = [...candidates].sort(compareCandidates(domain))
    return { codename: best!.codename, domain, fallback: false, candidates: candidates.length }
  }
  const [fallback] = await db
    .select({ codename: agents.codename })
    .from(agents)
    .where(and(eq(agents.codename, FALLBACK_AGENT), eq(agents.active, 1)))
  return fallback ? { codename: fallback.codename, domain, fallback: true, candidates: 0 } : null
}
