// Everything the spawn engine reads from the environment, parsed once, with an error naming
// the variable when a value makes no sense. The rest of the engine receives the object.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DeployCommandsError, readDeployCommands } from '#layers/clients/core/deploy-commands'
import { memoryConfig } from '#layers/memory/core/config'
import { AtlasConfigError, type AtlasEnv } from './env'
import { readAgentUids, type UidRange } from './spawn-uid'
import { readToolchain } from './toolchain'

/** The hub's own checkout (never the agent's folder, hidden inside the sandbox). */
export const HUB_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '')

/** How the agent is confined: Anthropic's sandbox runtime, plain bubblewrap, or not at all. */
export const SANDBOX_MODES = ['srt', 'bwrap', 'none'] as const
export type SandboxMode = typeof SANDBOX_MODES[number]

/** What becomes of a spawn's folder (its checkout, home, result file) when it ends. */
export const KEEP_POLICIES = ['never', 'failed', 'always'] as const
export type KeepPolicy = typeof KEEP_POLICIES[number]

/** The pg-boss queue of spawn jobs. */
export const SPAWN_QUEUE = 'atlas-spawn'

export interface SpawnConfig {
  /** ATLAS_SPAWN_DISABLED=1: the kill switch (no queueing, no new spawn; running ones finish). */
  disabled: boolean
  /** The agent binary (SPAWN_AGENT_BIN, default `claude` on PATH). */
  agentBin: string
  model: string
  permissionMode: string
  /** SPAWN_SANDBOX: srt (default), bwrap, or none (chosen explicitly, refused as root). */
  sandbox: SandboxMode
  /** The user the agent runs as when the worker is root and SPAWN_AGENT_UIDS is none (SPAWN_AGENT_USER, default nobody). */
  agentUser: string
  /** A uid of its own per spawn when the worker is root (SPAWN_AGENT_UIDS); null: all run as agentUser. */
  agentUids: UidRange | null
  /** What the agent may read besides its own folders (SPAWN_TOOLCHAIN, see toolchain.ts). */
  toolchain: string[]
  /**
   * The variable holding the model credential (SPAWN_AGENT_CREDENTIAL, default ANTHROPIC_API_KEY):
   * the worker's key injector puts its value into the requests' header; the agent gets a
   * placeholder under that name.
   */
  credentialEnv: string
  /** More variables handed to the agent (SPAWN_AGENT_ENV_PASS, names or `PREFIX_*`); never a hub secret. */
  envPass: string[]
  /** More hosts the agent may reach through the sandbox's proxy (SPAWN_ALLOW_HOSTS, host:port). */
  allowHosts: string[]
  /** The model API's host:port (ANTHROPIC_BASE_URL's), allowed only when there is no key injector. */
  modelApiHost: string
  /** Where the per-spawn folders go (SPAWN_ROOT): checkout, home, result file. */
  spawnRoot: string
  /** The repository cloned for a tenant without `config.repository` (SPAWN_DEFAULT_REPOSITORY); none: an empty one. */
  defaultRepository?: string
  keepWorkdir: KeepPolicy
  /** Folders the agent must never read: DATA_DIR, the vault, the hub's checkout, the spawns' root, logs and scratch. */
  hiddenDirs: string[]
  /** Where each spawn's stream log and temporary prompt and result files go. */
  logDir: string
  tmpDir: string
  timeoutMs: number
  /** Grace between TERM and KILL when a process group is stopped. */
  killGraceMs: number
  maxPerCycle: number
  /** No spawn audit (started, completed or failed) within this window before a new spawn. */
  recentWindowMinutes: number
  /** Per-message lease: heartbeated at a third of it; a dead worker's message is free after it. */
  leaseTtlMs: number
  globalConcurrency: number
  hostConcurrency: number
  /** How often an idle worker looks for a job. */
  pollMs: number
  /** The briefing's token budget in the system prompt (SPAWN_BRIEFING_BUDGET, o200k_base tokens). */
  briefingBudget: number
  /** How many lessons (scars and victories) the briefing recalls at most (SPAWN_BRIEFING_LESSONS). */
  briefingLessons: number
  /** The reflex memory's folder (REFLEX_DIR; its MEMORY.md goes into the briefing). */
  reflexDir: string
  /** How often the routed agent's heartbeat is written while it runs (SPAWN_HEARTBEAT_MS). */
  heartbeatMs: number
  maxIterations: number
  /** DEPLOY_COMMAND: the deploy of a client without one of its own. */
  deployCommand?: string
  /** SPAWN_DEPLOY_COMMANDS, name → command: a client picks one by name in the hub (clients.config.deploy). */
  deployCommands: Record<string, string>
  deployTimeoutMs: number
  /** Base address of the routes to QA when the tenant has no `config.preprodUrl`. */
  qaBaseUrl?: string
  qaNavigationTimeoutMs: number
  /** Waits this long after the page loaded for late console or page errors. */
  qaSettleMs: number
  chromiumPath: string
  /** The team's signature under reply drafts. */
  teamSignature: string
  /** Overrides the job expiry computed from the timeouts (SPAWN_JOB_EXPIRY_SEC). */
  jobExpirySec?: number
}

function text(env: AtlasEnv, name: string): string | undefined {
  const value = env[name]?.trim()
  return value ? value : undefined
}

function integer(env: AtlasEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) throw new AtlasConfigError(name, `expected a whole number between ${min} and ${max}, got "${raw}"`)
  return value
}

export function flagOn(env: AtlasEnv, name: string): boolean {
  const raw = text(env, name)?.toLowerCase()
  if (raw === undefined) return false
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new AtlasConfigError(name, `expected 1/0, true/false, yes/no or on/off, got "${raw}"`)
}

/** The kill switch alone (the hub reads it without the rest of the configuration). */
export function spawnDisabled(env: AtlasEnv): boolean {
  try {
    return flagOn(env, 'ATLAS_SPAWN_DISABLED')
  }
  catch {
    // An unreadable value disables rather than enables: the safe side.
    return true
  }
}

export const PERMISSION_MODES = ['acceptEdits', 'bypassPermissions', 'default', 'plan', 'dontAsk'] as const

function list(env: AtlasEnv, name: string): string[] {
  return (text(env, name) ?? '').split(',').map(item => item.trim()).filter(Boolean)
}

/** Names a hub secret may have: never handed to the agent, whatever SPAWN_AGENT_ENV_PASS says. */
export const SECRET_NAME = /DATABASE|PASSWORD|PASSWD|SECRET|TOKEN|_KEY$|^KEY|SMTP|IMAP|SESSION|COOKIE|CREDENTIAL|PRIVATE/i

/** The model API's host:port, from ANTHROPIC_BASE_URL (default api.anthropic.com:443). */
export function modelApiHost(env: AtlasEnv): string {
  const base = text(env, 'ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com'
  let url: URL
  try {
    url = new URL(base)
  }
  catch {
    throw new AtlasConfigError('ANTHROPIC_BASE_URL', `not an address: "${base}"`)
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return `${url.hostname}:${port}`
}

export function readSandboxMode(env: AtlasEnv, isRoot: boolean): SandboxMode {
  const raw = text(env, 'SPAWN_SANDBOX') ?? 'srt'
  if (!(SANDBOX_MODES as readonly string[]).includes(raw)) throw new AtlasConfigError('SPAWN_SANDBOX', `expected one of ${SANDBOX_MODES.join(', ')}, got "${raw}"`)
  if (raw === 'none' && isRoot) throw new AtlasConfigError('SPAWN_SANDBOX', 'none is refused when the worker runs as root: the agent would run as root with the whole machine; use srt or bwrap')
  return raw as SandboxMode
}

/** The deploy commands, their error said as the engine's other configuration errors (at the worker's start). */
function deployCommandsOf(env: AtlasEnv): ReturnType<typeof readDeployCommands> {
  try {
    return readDeployCommands(env)
  }
  catch (error) {
    if (error instanceof DeployCommandsError) throw new AtlasConfigError(error.variable, error.detail)
    throw error
  }
}

export function readSpawnConfig(env: AtlasEnv, cwd = process.cwd(), isRoot = process.getuid?.() === 0): SpawnConfig {
  const dataDir = text(env, 'DATA_DIR') ?? join(cwd, '.data')
  const envPass = list(env, 'SPAWN_AGENT_ENV_PASS')
  const secret = envPass.find(name => SECRET_NAME.test(name.replace(/\*$/, '')))
  if (secret) throw new AtlasConfigError('SPAWN_AGENT_ENV_PASS', `"${secret}" looks like a secret of the hub: the agent gets only SPAWN_AGENT_CREDENTIAL`)
  const keepWorkdir = text(env, 'SPAWN_KEEP_WORKDIR') ?? 'failed'
  if (!(KEEP_POLICIES as readonly string[]).includes(keepWorkdir)) throw new AtlasConfigError('SPAWN_KEEP_WORKDIR', `expected one of ${KEEP_POLICIES.join(', ')}, got "${keepWorkdir}"`)
  const credentialEnv = text(env, 'SPAWN_AGENT_CREDENTIAL') ?? 'ANTHROPIC_API_KEY'
  if (!/^[A-Z_][A-Z0-9_]*$/.test(credentialEnv)) throw new AtlasConfigError('SPAWN_AGENT_CREDENTIAL', `not a variable name: "${credentialEnv}"`)
  const agentUser = text(env, 'SPAWN_AGENT_USER') ?? 'nobody'
  if (!/^[a-z_][\w.-]*$/i.test(agentUser)) throw new AtlasConfigError('SPAWN_AGENT_USER', `not a user name: "${agentUser}"`)
  const permissionMode = text(env, 'SPAWN_PERMISSION_MODE') ?? 'acceptEdits'
  if (!(PERMISSION_MODES as readonly string[]).includes(permissionMode)) {
    throw new AtlasConfigError('SPAWN_PERMISSION_MODE', `expected one of ${PERMISSION_MODES.join(', ')}, got "${permissionMode}"`)
  }
  const model = text(env, 'SPAWN_MODEL') ?? 'sonnet'
  if (!/^[\w.:-]+$/.test(model)) throw new AtlasConfigError('SPAWN_MODEL', `not a model name: "${model}"`)
  const qaBaseUrl = text(env, 'SPAWN_QA_BASE_URL')
  if (qaBaseUrl && !/^https?:\/\//.test(qaBaseUrl)) throw new AtlasConfigError('SPAWN_QA_BASE_URL', `expected an http(s) address, got "${qaBaseUrl}"`)
  const globalConcurrency = integer(env, 'SPAWN_GLOBAL_CONCURRENCY', 2, 1, 100)
  const spawnRoot = text(env, 'SPAWN_ROOT') ?? join(tmpdir(), 'synedre-spawns')
  const logDir = text(env, 'SPAWN_LOG_DIR') ?? join(dataDir, 'spawn-logs')
  const scratchDir = text(env, 'ATLAS_TMP_DIR') ?? join(dataDir, 'tmp')
  const deploys = deployCommandsOf(env)
  return {
    disabled: flagOn(env, 'ATLAS_SPAWN_DISABLED'),
    agentBin: text(env, 'SPAWN_AGENT_BIN') ?? 'claude',
    model,
    permissionMode,
    sandbox: readSandboxMode(env, isRoot),
    agentUser,
    agentUids: readAgentUids(env),
    toolchain: readToolchain(env),
    credentialEnv,
    envPass,
    allowHosts: list(env, 'SPAWN_ALLOW_HOSTS'),
    modelApiHost: modelApiHost(env),
    spawnRoot,
    defaultRepository: text(env, 'SPAWN_DEFAULT_REPOSITORY'),
    keepWorkdir: keepWorkdir as KeepPolicy,
    // Other spawns' folders, logs and scratch too: hidden even were they under a toolchain entry.
    hiddenDirs: [...new Set([dataDir, text(env, 'VAULT_DIR') ?? join(dataDir, 'vault'), HUB_ROOT, cwd, spawnRoot, logDir, scratchDir])],
    logDir,
    tmpDir: scratchDir,
    timeoutMs: integer(env, 'SPAWN_TIMEOUT_SEC', 2400, 1, 24 * 3600) * 1000,
    killGraceMs: integer(env, 'SPAWN_KILL_GRACE_MS', 5000, 0, 600_000),
    maxPerCycle: integer(env, 'SPAWN_MAX_PER_CYCLE', 3, 1, 3),
    recentWindowMinutes: integer(env, 'SPAWN_RECENT_WINDOW_MIN', 60, 0, 7 * 24 * 60),
    leaseTtlMs: integer(env, 'SPAWN_LEASE_TTL_MS', 60_000, 1000, 3_600_000),
    globalConcurrency,
    hostConcurrency: integer(env, 'SPAWN_HOST_CONCURRENCY', 1, 1, 100),
    pollMs: integer(env, 'SPAWN_POLL_MS', 2000, 50, 600_000),
    briefingBudget: integer(env, 'SPAWN_BRIEFING_BUDGET', 2000, 200, 50_000),
    briefingLessons: integer(env, 'SPAWN_BRIEFING_LESSONS', 5, 0, 10),
    reflexDir: memoryConfig(env).reflexDir,
    heartbeatMs: integer(env, 'SPAWN_HEARTBEAT_MS', 60_000, 100, 600_000),
    maxIterations: integer(env, 'SPAWN_MAX_ITERATIONS', 3, 1, 10),
    deployCommand: deploys.fallback,
    deployCommands: deploys.named,
    deployTimeoutMs: integer(env, 'DEPLOY_TIMEOUT_SEC', 900, 1, 6 * 3600) * 1000,
    qaBaseUrl,
    qaNavigationTimeoutMs: integer(env, 'SPAWN_QA_TIMEOUT_MS', 30_000, 100, 600_000),
    qaSettleMs: integer(env, 'SPAWN_QA_SETTLE_MS', 500, 0, 60_000),
    chromiumPath: text(env, 'CHROMIUM_PATH') ?? '/usr/bin/chromium',
    teamSignature: readTeamSignature(env),
    jobExpirySec: text(env, 'SPAWN_JOB_EXPIRY_SEC') === undefined ? undefined : integer(env, 'SPAWN_JOB_EXPIRY_SEC', 0, 10, 7 * 24 * 3600),
  }
}

/** The pg-boss job of a spawn expires after the agent's timeout, the deploy and QA, plus a margin. */
export function jobExpirySeconds(config: Pick<SpawnConfig, 'timeoutMs' | 'deployTimeoutMs' | 'killGraceMs' | 'jobExpirySec'>): number {
  if (config.jobExpirySec !== undefined) return config.jobExpirySec
  return Math.ceil((config.timeoutMs + config.deployTimeoutMs + config.killGraceMs) / 1000) + 600
}

/** The team's signature under reply drafts (ATLAS_TEAM_SIGNATURE); read alone by the draft route. */
export function readTeamSignature(env: AtlasEnv): string {
  return text(env, 'ATLAS_TEAM_SIGNATURE') ?? 'L\'équipe Synedre'
}
