// The policy check every tool call passes before it runs (P4, P6): an unknown tool does not
// exist; an `allowlist` agent calls only its listed tools; in the `user` regime the person's
// own role decides (a viewer reads, writes need an operator); an EXTERNAL_WRITE (and any
// DESTRUCTIVE call) waits for a person's approval unless the agent holds a standing approval
// for that tool (never for DESTRUCTIVE). A tool with no class yet (an MCP server's new or
// changed tool) is refused whatever the regime; a third party's WRITE (an MCP server's: the hub
// cannot undo it) waits for approval as an EXTERNAL_WRITE does.
import type { ToolDefinition } from './tools'
import { HUB_ROLE_RANK, type PersonRole, type Regime } from './vocabulary'

export type PolicyDecision
  = | { kind: 'allow' }
    | { kind: 'ask' }
    | { kind: 'deny', code: 'unknown_tool' | 'unclassified_tool' | 'not_allowlisted' | 'not_allowed_by_skill' | 'role_forbids_write', reason: string }

export interface PolicyInput {
  name: string
  tool: ToolDefinition | undefined
  regime: Regime
  role: PersonRole
  allowlist: readonly string[]
  /** The agent holds a live standing approval for this tool. */
  standing: boolean
  /** The tools the run's skills allow (null: no skill restricts); a skill never widens. */
  skillTools?: readonly string[] | null
}

export function checkPolicy(input: PolicyInput): PolicyDecision {
  const { tool } = input
  if (!tool) return { kind: 'deny', code: 'unknown_tool', reason: `no tool named "${input.name.slice(0, 64)}" exists` }
  if (tool.unclassified) return { kind: 'deny', code: 'unclassified_tool', reason: `${tool.name} has no class yet: a founder classifies it before any agent may call it` }
  if ((input.regime === 'allowlist' || tool.allowlistOnly) && !input.allowlist.includes(tool.name)) {
    return { kind: 'deny', code: 'not_allowlisted', reason: `${tool.name} is not in this agent's allowlist` }
  }
  if (input.skillTools && !input.skillTools.includes(tool.name)) {
    return { kind: 'deny', code: 'not_allowed_by_skill', reason: `${tool.name} is not among the tools the run's skills allow` }
  }
  if (tool.class !== 'READ' && input.regime === 'user' && HUB_ROLE_RANK[input.role] < HUB_ROLE_RANK.operator) {
    return { kind: 'deny', code: 'role_forbids_write', reason: `a ${input.role} cannot use ${tool.name} (${tool.class})` }
  }
  if (tool.class === 'DESTRUCTIVE') return { kind: 'ask' }
  if (tool.class === 'EXTERNAL_WRITE' || (tool.thirdParty && tool.class === 'WRITE')) return input.standing ? { kind: 'allow' } : { kind: 'ask' }
  return { kind: 'allow' }
}
