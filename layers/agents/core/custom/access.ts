// Allowlist access (seed 003 P3, §16.1) and delegation (§12.7). A custom agent's run may use
// only the intersection of its owner's rights, the agent's explicit allowlist (nothing by
// default) and the studio's policy. A delegated child is a run of ANOTHER agent under its
// OWN allowlist (never its parent's), one level deeper, capped at the parent agent's depth
// (3 by default, 5 at most), spending what is left of the parent's budget.
import { desc, eq, inArray } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentInstructionVersions, agentInstructions } from '#db/schema/agent-instructions'
import { agentCustom, type AgentCustom } from '#db/schema/custom-agents'
import { hubUsers } from '#db/schema/hub'
import { skills } from '#db/schema/skills'
import type { RunContext, RunContextRequest } from '../engine/context'
import { readStudioPolicy } from './studio-policy'
import { EngineError } from '../engine/errors'
import type { ToolRegistry } from '../engine/tools'
import { WRITE_TOOL_NAMES } from '../engine/write-tools'
import { HUB_ROLE_RANK, type PersonRole, type Surface } from '../engine/vocabulary'

export const DELEGATE_TOOL = 'delegate_to_agent'
export const DEFAULT_MAX_DEPTH = 3
export const MAX_DEPTH_LIMIT = 5

/** What the studio lets any autonomous agent do (null: every registered tool). */
export interface StudioPolicy { tools: readonly string[] | null }

export interface EffectiveAccess { tools: string[], tenants: string[] }

/** Tools of the person's own agent only: a custom agent never holds them, whatever its allowlist says. */
export const PERSONAL_ONLY_TOOLS: readonly string[] = ['draft_custom_agent', ...WRITE_TOOL_NAMES]

/**
 * P3: owner's rights ∩ allowlist ∩ studio policy. A viewer owner's agent only reads; so does a
 * run a viewer starts (a sharee's role narrows, never widens: `actingRole`).
 */
export function effectiveAccess(agent: Pick<AgentCustom, 'allowlist' | 'canDelegate'>, ownerRole: PersonRole | null, registry: ToolRegistry, policy: StudioPolicy = { tools: null }, actingRole: PersonRole | null = null): EffectiveAccess {
  if (!ownerRole) return { tools: [], tenants: [] }
  const granted = new Set(agent.allowlist.tools)
  const rank = Math.min(HUB_ROLE_RANK[ownerRole], actingRole ? HUB_ROLE_RANK[actingRole] : Infinity)
  const tools = registry.list().filter((tool) => {
    if (PERSONAL_ONLY_TOOLS.includes(tool.name)) return false
    if (policy.tools && !policy.tools.includes(tool.name)) return false
    if (tool.class !== 'READ' && rank < HUB_ROLE_RANK.operator) return false
    return tool.name === DELEGATE_TOOL ? agent.canDelegate : granted.has(tool.name)
  }).map(tool => tool.name)
  return { tools, tenants: [...agent.allowlist.tenants] }
}

export async function customAgent(db: Db, codename: string): Promise<AgentCustom> {
  const [row] = await db.select().from(agentCustom).where(eq(agentCustom.codename, codename))
  if (!row) throw new EngineError('not_found', `no custom agent ${codename}`, 404)
  return row
}

async function ownerRoleOf(db: Db, email: string): Promise<PersonRole | null> {
  const [row] = await db.select({ role: hubUsers.role, active: hubUsers.active }).from(hubUsers).where(eq(hubUsers.email, email))
  return row && row.active ? row.role as PersonRole : null
}

export interface CustomRunInput {
  codename: string
  request: string
  trigger: 'interactive' | 'autonomous'
  surface: Surface
  /** Who asked (the Chat tab's person); an autonomous run acts for the agent's owner. */
  actingUser?: { id: string | null, email: string, role: PersonRole }
  parent?: { runId: string, context: RunContext, usedTokens: number, usedCostUsd: number, usedIterations: number }
  extraContext?: string
}

/**
 * The run context of a custom agent's run: its instructions, attached skills, allowlist, model.
 * The studio policy is read from the database unless given (every custom run passes it).
 */
export async function customRunContext(
  db: Db,
  registry: ToolRegistry,
  input: CustomRunInput,
  policy?: StudioPolicy,
): Promise<RunContextRequest> {
  const agent = await customAgent(db, input.codename)
  if (agent.killed) throw new EngineError('agent_killed', `${agent.codename} is stopped (kill switch): it starts no new run`, 409)
  const ownerRole = await ownerRoleOf(db, agent.ownerEmail)
  const interactive = input.trigger === 'interactive' && input.actingUser ? input.actingUser.role : null
  const access = effectiveAccess(agent, ownerRole, registry, policy ?? (await readStudioPolicy(db)), interactive)
  let depth = 0
  let budget: RunContextRequest['budget']
  if (input.parent) {
    depth = input.parent.context.depth + 1
    const parentAgent = await db
      .select({ maxDepth: agentCustom.maxDepth })
      .from(agentCustom)
      .where(eq(agentCustom.codename, input.parent.context.agent.codename))
    const cap = Math.min(parentAgent[0]?.maxDepth ?? DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT)
    if (depth > cap) throw new EngineError('depth_exceeded', `delegation depth ${depth} is over the cap of ${cap}`, 409)
    const parentBudget = input.parent.context.budget
    // One budget for the whole tree: the child gets what the parent has not spent yet.
    budget = {
      iterations: Math.max(1, parentBudget.iterations - input.parent.usedIterations),
      tokens: Math.max(100, parentBudget.tokens - input.parent.usedTokens),
      costUsd: Math.max(0, parentBudget.costUsd - input.parent.usedCostUsd),
    }
  }
  const [instructions, forced] = await Promise.all([instructionsOf(db, agent), skillsOf(db, agent.skillIds)])
  const acting
    = input.trigger === 'autonomous' || !input.actingUser
      ? { id: null, email: agent.ownerEmail, role: ownerRole ?? 'viewer' }
      : input.actingUser
  return {
    surface: input.surface,
    trigger: input.trigger,
    actingUser: acting,
    agent: { codename: agent.codename, ownerEmail: agent.ownerEmail },
    regime: 'allowlist',
    allowlist: access.tools,
    tenants: access.tenants,
    depth,
    instructions,
    forcedSkills: forced,
    modelRequest: agent.model as RunContextRequest['modelRequest'],
    request: input.extraContext ? `${input.request}\n\nContext from the delegating agent:\n${input.extraContext}` : input.request,
    parentRunId: input.parent?.runId ?? null,
    ...(budget ? { budget } : {}),
  }
}

async function instructionsOf(db: Db, agent: AgentCustom): Promise<RunContextRequest['instructions']> {
  if (!agent.instructionId) return []
  // Only a document of the agent's owner is read: linking someone else's is not a way in.
  const [row] = await db
    .select({
      id: agentInstructions.id,
      owner: agentInstructions.ownerEmail,
      version: agentInstructionVersions.version,
      body: agentInstructionVersions.body,
    })
    .from(agentInstructions)
    .innerJoin(agentInstructionVersions, eq(agentInstructionVersions.instructionId, agentInstructions.id))
    .where(eq(agentInstructions.id, agent.instructionId))
    .orderBy(desc(agentInstructionVersions.version))
    .limit(1)
  if (!row || row.owner !== agent.ownerEmail) return []
  return [{ source: `instructions:${row.id}@v${row.version}`, text: row.body }]
}

async function skillsOf(db: Db, ids: number[]): Promise<RunContextRequest['forcedSkills']> {
  if (ids.length === 0) return []
  const rows = await db.select({ name: skills.name, body: skills.body }).from(skills).where(inArray(skills.id, ids.slice(0, 10)))
  return rows.map(row => ({ name: row.name, text: row.body }))
}
