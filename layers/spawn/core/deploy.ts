// The pre-production deploy of a chantier: DEPLOY_COMMAND, templated with the tenant
// (`{tenant}` → its slug, shell-quoted), run in its own process group with a deadline
// (15 minutes by default) after which the whole group is stopped.
import { runCommand, type CommandResult } from './processes'

export interface DeployInput {
  command: string
  tenantSlug: string | null
  messageId: number
  spawnId: string
  cwd: string
  timeoutMs: number
  graceMs: number
  env: Readonly<Record<string, string | undefined>>
  signal?: AbortSignal
}

export interface DeployReport extends CommandResult {
  ok: boolean
  command: string
}

function shellQuote(value: string): string {
  return `'${value.replaceAll('\'', `'\\''`)}'`
}

export function templateDeployCommand(command: string, tenantSlug: string | null): string {
  if (command.includes('{tenant}') && !tenantSlug) throw new Error('DEPLOY_COMMAND needs {tenant}, but the message has no tenant')
  if (tenantSlug && !/^[a-z0-9][a-z0-9_-]*$/i.test(tenantSlug)) throw new Error(`the tenant slug "${tenantSlug}" is not safe to put in a command`)
  return command.replaceAll('{tenant}', tenantSlug ? shellQuote(tenantSlug) : '')
}

export async function runDeploy(input: DeployInput): Promise<DeployReport> {
  const command = templateDeployCommand(input.command, input.tenantSlug)
  const result = await runCommand(command, {
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
    graceMs: input.graceMs,
    signal: input.signal,
    env: { ...input.env, SYNEDRE_TENANT: input.tenantSlug ?? '', SYNEDRE_MESSAGE_ID: String(input.messageId), SYNEDRE_SPAWN_ID: input.spawnId },
  })
  return { ...result, command, ok: !result.timedOut && result.exitCode === 0 }
}
