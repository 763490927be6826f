// The registry read side: the list with its filters (family, ring, active, domain), routing
// by prompt domain, one agent's page (identity, scope, tiers, activity, relationships) and
// the reactor's nodes. The stored ring (`orbite`) is a filter; the reactor draws from the family.
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Db } from '#db/client'
import { agents, agentsActivity, agentsExperience, agentsHeartbeats, agentsRelationships, type Agent } from '#db/schema/agents'
import { AgentsError } from './errors'
import { DOMAIN_PATTERN, isAgentFamily, parseDomains, reactorRing, type AgentFamily } from './families'
import { liveState, type LiveState } from './heartbeats'
import { previewTiers, type TierPreview } from './persona'

export interface AgentFilters {
  family?: string
  ring?: number
  active?: boolean
  domain?: string
}

export interface AgentSummary {
  id: number
  codename: string
  nickname: string
  role: string
  roleEn: string
  family: AgentFamily
  orbite: number
  reactorRing: 1 | 2 | 3
  active: boolean
  autoSpawn: boolean
  domains: string[]
  spawnCount: number
  errorCount: number
  lastSpawnAt: Date | null
  state: LiveState
  beatAt: Date | null
  detail: string
}

export function checkDomain(domain: string): string {
  const normalised = domain.trim().toLowerCase()
  if (!DOMAIN_PATTERN.test(normalised)) throw new AgentsError('bad_domain', `a prompt domain is lower-case letters, digits, "-" or "_" (got "${domain}")`)
  return normalised
}

/** The SQL test "the CSV prompt_domains holds this domain" (exact item, not a substring). */
export function domainCondition(domain: string): SQL {
  return sql`position(${`,${checkDomain(domain)},`} in (',' || lower(replace(${agents.promptDomains}, ' ', '')) || ',')) > 0`
}

function summarise(row: Agent, beat: { state: string, beatAt: Date, detail: string } | null, now: Date): AgentSummary {
  return {
    id: row.id,
    codename: row.codename,
    nickname: row.nickname,
    role: row.role,
    roleEn: row.roleEn,
    family: (isAgentFamily(row.groupName) ? row.groupName : 'execution'),
    orbite: row.orbite,
    reactorRing: reactorRing(row.groupName),
    active: row.active === 1,
    autoSpawn: row.autoSpawn === 1,
    domains: parseDomains(row.promptDomains),
    spawnCount: row.spawnCount,
    errorCount: row.errorCount,
    lastSpawnAt: row.lastSpawnAt,
    state: liveState(beat, now),
    beatAt: beat?.beatAt ?? null,
    detail: beat?.detail ?? '',
  }
}

export async function listAgents(db: Db, filters: AgentFilters = {}, now: Date = new Date()): Promise<AgentSummary[]> {
  const conditions: SQL[] = []
  if (filters.family !== undefined) {
    if (!isAgentFamily(filters.family)) throw new AgentsError('bad_filter', `the family must be direction, cadrage, execution or validation (got "${filters.family}")`)
    conditions.push(eq(agents.groupName, filters.family))
  }
  if (filters.ring !== undefined) {
    if (![1, 2, 3].includes(filters.ring)) throw new AgentsError('bad_filter', `the ring must be 1, 2 or 3 (got ${String(filters.ring)})`)
    conditions.push(eq(agents.orbite, filters.ring))
  }
  if (filters.active !== undefined) conditions.push(eq(agents.active, filters.active ? 1 : 0))
  if (filters.domain !== undefined) conditions.push(domainCondition(filters.domain))
  const rows = await db.select({ agent: agents, beat: agentsHeartbeats }).from(agents)
    .leftJoin(agentsHeartbeats, eq(agentsHeartbeats.agent, agents.codename))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(asc(agents.orbite), asc(agents.groupName), asc(agents.id))
  return rows.map(({ agent, beat }) => summarise(agent, beat, now))
}

/** Routing by prompt domain: the active agents whose CSV of domains includes it. */
export async function agentsForDomain(db: Db, domain: string, now: Date = new Date()): Promise<AgentSummary[]> {
  return await listAgents(db, { domain, active: true }, now)
}

export async function findAgent(db: Db, codename: string): Promise<Agent> {
  const [row] = await db.select().from(agents).where(eq(agents.codename, codename))
  if (!row) throw new AgentsError('unknown_agent', `no agent with codename "${codename}"`)
  return row
}

export interface AgentRelation {
  direction: 'out' | 'in'
  kind: string
  note: string
  noteEn: string
  other: { codename: string, nickname: string, family: string }
}

export interface AgentDetail {
  agent: Agent
  summary: AgentSummary
  tiers: { en: TierPreview[], fr: TierPreview[] }
  activity: { id: number, kind: string, summary: string, ref: string | null, createdAt: Date }[]
  relationships: AgentRelation[]
  experience: { xp: number, missions: number, successes: number, failures: number } | null
}

export async function agentDetail(db: Db, codename: string, now: Date = new Date()): Promise<AgentDetail> {
  const agent = await findAgent(db, codename)
  const [beat] = await db.select().from(agentsHeartbeats).where(eq(agentsHeartbeats.agent, codename))
  const other = alias(agents, 'other')
  const [activity, outgoing, incoming, [experience]] = await Promise.all([
    db
      .select({
        id: agentsActivity.id,
        kind: agentsActivity.kind,
        summary: agentsActivity.summary,
        ref: agentsActivity.ref,
        createdAt: agentsActivity.createdAt,
      })
      .from(agentsActivity)
      .where(eq(agentsActivity.agent, codename))
      .orderBy(desc(agentsActivity.createdAt), desc(agentsActivity.id))
      .limit(30),
    db
      .select({ rel: agentsRelationships, codename: other.codename, nickname: other.nickname, family: other.groupName })
      .from(agentsRelationships)
      .innerJoin(other, eq(other.codename, agentsRelationships.toAgent))
      .where(eq(agentsRelationships.fromAgent, codename))
      .orderBy(asc(agentsRelationships.id)),
    db
      .select({ rel: agentsRelationships, codename: other.codename, nickname: other.nickname, family: other.groupName })
      .from(agentsRelationships)
      .innerJoin(other, eq(other.codename, agentsRelationships.fromAgent))
      .where(eq(agentsRelationships.toAgent, codename))
      .orderBy(asc(agentsRelationships.id)),
    db
      .select({
        xp: agentsExperience.xp,
        missions: agentsExperience.missions,
        successes: agentsExperience.successes,
        failures: agentsExperience.failures,
      })
      .from(agentsExperience)
      .where(eq(agentsExperience.agent, codename)),
  ])
  const relation
    = (direction: 'out' | 'in') =>
      (row: (typeof outgoing)[number]): AgentRelation => ({
        direction,
        kind: row.rel.kind,
        note: row.rel.note,
        noteEn: row.rel.noteEn,
        other: { codename: row.codename, nickname: row.nickname, family: row.family },
      })
  return {
    agent,
    summary: summarise(agent, beat ?? null, now),
    tiers: { en: previewTiers(agent, 'en'), fr: previewTiers(agent, 'fr') },
    activity,
    relationships: [...outgoing.map(relation('out')), ...incoming.map(relation('in'))],
    experience: experience ?? null,
  }
}

export interface ReactorNode {
  codename: string
  nickname: string
  family: AgentFamily
  ring: 1 | 2 | 3
  state: LiveState
  role: string
}

/** Every active agent, placed on its family's ring (never the stored `orbite`). */
export async function reactorNodes(db: Db, now: Date = new Date()): Promise<ReactorNode[]> {
  const rows = await listAgents(db, { active: true }, now)
  return rows
    .map(row => ({
      codename: row.codename,
      nickname: row.nickname,
      family: row.family,
      ring: row.reactorRing,
      state: row.state,
      role: row.roleEn || row.role,
    }))
    .sort((a, b) => a.ring - b.ring || a.family.localeCompare(b.family) || a.codename.localeCompare(b.codename))
}
