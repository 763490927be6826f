// The agent's command line and environment. `--add-dir` goes FIRST and every valued flag is
// written `--flag=value`: several of the CLI's flags are variadic and would otherwise
// swallow what follows (the prompt taken for a directory cost a past incident 30 minutes).
// The prompt comes last, after `--`.

export interface AgentArgsInput {
  addDir: string
  model: string
  systemPrompt: string
  permissionMode: string
  prompt: string
  /** The MCP configuration file (mcp.ts), alone: `--strict-mcp-config` ignores every other. */
  mcpConfig?: string | null
  /** `mcp__<server>__<tool>` names the agent may use, and those withheld from it. */
  allowedTools?: string[]
  disallowedTools?: string[]
}

export function buildAgentArgs(input: AgentArgsInput): string[] {
  return [
    `--add-dir=${input.addDir}`,
    '-p',
    '--verbose',
    '--output-format=stream-json',
    '--include-partial-messages',
    '--no-session-persistence',
    `--model=${input.model}`,
    `--system-prompt=${input.systemPrompt}`,
    `--permission-mode=${input.permissionMode}`,
    ...(input.mcpConfig ? [`--mcp-config=${input.mcpConfig}`, '--strict-mcp-config'] : []),
    ...(input.allowedTools?.length ? [`--allowedTools=${input.allowedTools.join(',')}`] : []),
    ...(input.disallowedTools?.length ? [`--disallowedTools=${input.disallowedTools.join(',')}`] : []),
    '--',
    input.prompt,
  ]
}

export type Env = Readonly<Record<string, string | undefined>>

/**
 * The agent's environment: the parent's (database coordinates and the rest the hooks need,
 * inherited, never written in code) without any nested-session marker (`CLAUDECODE`,
 * `CLAUDE_CODE_*`: a nested session behaves differently), plus the spawn's identity.
 */
export function agentEnv(env: Env, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (name === 'CLAUDECODE' || name.startsWith('CLAUDE_CODE_')) continue
    out[name] = value
  }
  return { ...out, TERM: 'xterm-color', ...extra }
}
