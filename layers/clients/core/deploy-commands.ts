// The deploy commands a client may be given. A command typed in the hub would let any operator
// run shell on the studio's machine, so the commands are the environment's: SPAWN_DEPLOY_COMMANDS
// (a JSON object, name → command) and DEPLOY_COMMAND (the default, for a client naming none).
// A client stores a name only (clients.config.deploy); the hub offers these names.

/** The environment variable of the named commands. */
export const DEPLOY_COMMANDS_ENV = 'SPAWN_DEPLOY_COMMANDS'

/** A deploy command's name: what the hub shows and clients.config.deploy stores. */
export const DEPLOY_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/

export class DeployCommandsError extends Error {
  constructor(readonly variable: string, readonly detail: string) {
    super(`${variable}: ${detail}`)
    this.name = 'DeployCommandsError'
  }
}

export interface DeployCommands {
  /** DEPLOY_COMMAND: run for a client without a deploy of its own; undefined when not set. */
  fallback?: string
  /** SPAWN_DEPLOY_COMMANDS, name → command. */
  named: Record<string, string>
}

/** Reads both variables; an unreadable SPAWN_DEPLOY_COMMANDS is an error naming it (said at start). */
export function readDeployCommands(env: Readonly<Record<string, string | undefined>>): DeployCommands {
  const fallback = env.DEPLOY_COMMAND?.trim() || undefined
  const raw = env.SPAWN_DEPLOY_COMMANDS?.trim()
  if (!raw) return { fallback, named: {} }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  }
  catch (error) {
    throw new DeployCommandsError(DEPLOY_COMMANDS_ENV, `not JSON (${(error as Error).message}); expected an object such as {"static-site":"./deploy.sh {tenant}"}`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DeployCommandsError(DEPLOY_COMMANDS_ENV, 'expected a JSON object, name → command')
  }
  const named: Record<string, string> = {}
  for (const [name, command] of Object.entries(parsed)) {
    if (!DEPLOY_NAME.test(name)) throw new DeployCommandsError(DEPLOY_COMMANDS_ENV, `"${name}" is not a deploy name (lower-case letters, digits, _ and -, at most 63)`)
    if (typeof command !== 'string' || !command.trim()) throw new DeployCommandsError(DEPLOY_COMMANDS_ENV, `the command of "${name}" must be a non-empty string`)
    named[name] = command.trim()
  }
  return { fallback, named }
}

/** The command a client's deploy name stands for; an error when the name is no longer defined. */
export function deployCommandFor(commands: DeployCommands, name: string | null): string | undefined {
  if (name === null) return commands.fallback
  const command = commands.named[name]
  if (command === undefined) {
    const known = Object.keys(commands.named)
    throw new DeployCommandsError(DEPLOY_COMMANDS_ENV, `the client's deploy "${name}" is not defined (defined: ${known.length ? known.join(', ') : 'none'})`)
  }
  return command
}
