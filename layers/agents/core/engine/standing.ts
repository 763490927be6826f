// Standing approvals (P6): a person lets one agent use one EXTERNAL_WRITE tool without asking
// each time. Granted and revoked rows are never deleted, and both acts go to hub_audit.
import { and, desc, eq, isNull } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentStandingApprovals } from '#db/schema/agent-runs'
import { hubAudit } from '#db/schema/hub'
import { EngineError } from './errors'
import type { ToolRegistry } from './tools'

export type StandingApproval = typeof agentStandingApprovals.$inferSelect

export async function hasStandingApproval(db: Db, agent: string, tool: string): Promise<boolean> {
  const rows = await db
    .select({ id: agentStandingApprovals.id })
    .from(agentStandingApprovals)
    .where(and(eq(agentStandingApprovals.agent, agent), eq(agentStandingApprovals.tool, tool), isNull(agentStandingApprovals.revokedAt)))
    .limit(1)
  return rows.length > 0
}

export async function listStandingApprovals(db: Db, agent: string): Promise<StandingApproval[]> {
  return await db
    .select()
    .from(agentStandingApprovals)
    .where(eq(agentStandingApprovals.agent, agent))
    .orderBy(desc(agentStandingApprovals.grantedAt))
}

export async function grantStandingApproval(
  db: Db,
  registry: ToolRegistry,
  agent: string,
  tool: string,
  by: string,
): Promise<StandingApproval> {
  const definition = registry.get(tool)
  if (!definition) throw new EngineError('unknown_tool', `no tool named ${tool}`, 404)
  if (definition.class !== 'EXTERNAL_WRITE' && !(definition.thirdParty && definition.class === 'WRITE'))
    throw new EngineError(
      'not_external_write',
      `${tool} is ${definition.class}: only EXTERNAL_WRITE tools (and an MCP server's WRITE) take a standing approval`,
      400,
    )
  return await db.transaction(async (tx) => {
    const [row] = await tx.insert(agentStandingApprovals).values({ agent, tool, grantedBy: by }).onConflictDoNothing().returning()
    if (!row) throw new EngineError('already_granted', `${agent} already holds a standing approval for ${tool}`, 409)
    await tx
      .insert(hubAudit)
      .values({ actor: by, action: 'agent_standing_approval_granted', target: `${agent}:${tool}`, details: { id: row.id } })
    return row
  })
}

export async function revokeStandingApproval(db: Db, agent: string, tool: string, by: string): Promise<StandingApproval> {
  return await db.transaction(async (tx) => {
    const [row] = await tx
      .update(agentStandingApprovals)
      .set({ revokedAt: new Date(), revokedBy: by })
      .where(and(eq(agentStandingApprovals.agent, agent), eq(agentStandingApprovals.tool, tool), isNull(agentStandingApprovals.revokedAt)))
      .returning()
    if (!row) throw new EngineError('not_granted', `${agent} holds no standing approval for ${tool}`, 404)
    await tx.insert(hubAudit).values({ actor: by, action: 'agent_standing_approval_revoked', target: `${agent}:${tool}`, details: { id: row.id } })
    return row
  })
}
