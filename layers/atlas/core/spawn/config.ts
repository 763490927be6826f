// Everything the spawn engine reads from the environment, parsed once, with an error naming
// the variable when a value makes no sense. The rest of the engine receives the object.
import { join } from 'node:path'
import { AtlasConfigError, type AtlasEnv } from '../config'

/** The pg-boss queue of spawn jobs. */
export const SPAWN_QUEUE = 'atlas-spawn'

export interface SpawnConfig {
  /** ATLAS_SPAWN_DISABLED=1: the kill switch (no queueing, no new spawn; running ones finish). */
  disabled: boolean
  /** The agent binary (SPAWN_AGENT_BIN, default `claude` on PATH). */
  agentBin: string
  model: string
  permissionMode: string
  /** The folder the agent may work in (`--add-dir`). */
  workDir: string
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
  maxIterations: number
  deployCommand?: string
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

export function readSpawnConfig(env: AtlasEnv, cwd = process.cwd()): SpawnConfig {
  const dataDir = text(env, 'DATA_DIR') ?? join(cwd, '.data')
  const permissionMode = text(env, 'SPAWN_PERMISSION_MODE') ?? 'acceptEdits'
  if (!(PERMISSION_MODES as readonly string[]).includes(permissionMode)) {
    throw new AtlasConfigError('SPAWN_PERMISSION_MODE', `expected one of ${PERMISSION_MODES.join(', ')}, got "${permissionMode}"`)
  }
  const model = text(env, 'SPAWN_MODEL') ?? 'sonnet'
  if (!/^[\w.:-]+$/.test(model)) throw new AtlasConfigError('SPAWN_MODEL', `not a model name: "${model}"`)
  const qaBaseUrl = text(env, 'SPAWN_QA_BASE_URL')
  if (qaBaseUrl && !/^https?:\/\//.test(qaBaseUrl)) throw new AtlasConfigError('SPAWN_QA_BASE_URL', `expected an http(s) address, got "${qaBaseUrl}"`)
  const globalConcurrency = integer(env, 'SPAWN_GLOBAL_CONCURRENCY', 2, 1, 100)
  return {
    disabled: flagOn(env, 'ATLAS_SPAWN_DISABLED'),
    agentBin: text(env, 'SPAWN_AGENT_BIN') ?? 'claude',
    model,
    permissionMode,
    workDir: text(env, 'SPAWN_WORKDIR') ?? cwd,
    logDir: text(env, 'SPAWN_LOG_DIR') ?? join(dataDir, 'spawn-logs'),
    tmpDir: text(env, 'ATLAS_TMP_DIR') ?? join(dataDir, 'tmp'),
    timeoutMs: integer(env, 'SPAWN_TIMEOUT_SEC', 2400, 1, 24 * 3600) * 1000,
    killGraceMs: integer(env, 'SPAWN_KILL_GRACE_MS', 5000, 0, 600_000),
    maxPerCycle: integer(env, 'SPAWN_MAX_PER_CYCLE', 3, 1, 3),
    recentWindowMinutes: integer(env, 'SPAWN_RECENT_WINDOW_MIN', 60, 0, 7 * 24 * 60),
    leaseTtlMs: integer(env, 'SPAWN_LEASE_TTL_MS', 60_000, 1000, 3_600_000),
    globalConcurrency,
    hostConcurrency: integer(env, 'SPAWN_HOST_CONCURRENCY', 1, 1, 100),
    pollMs: integer(env, 'SPAWN_POLL_MS', 2000, 50, 600_000),
    maxIterations: integer(env, 'SPAWN_MAX_ITERATIONS', 3, 1, 10),
    deployCommand: text(env, 'DEPLOY_COMMAND'),
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
  return text(env, 'ATLAS_TEAM_SIGNATURE') ?? "L'équipe Synedre"
}
