// How much a person may give the agents, from the environment with sensible defaults: the
// size of one file, how many files one chat message or run takes, and a rolling day's quota
// per person (files and bytes), plus what a produced file may weigh and how long files stay.
const MB = 1024 * 1024

export interface FileLimits {
  /** One uploaded file, in bytes (AGENT_FILE_MAX_BYTES, 10 MB). */
  maxFileBytes: number
  /** Files per chat message or per run's inputs (AGENT_FILES_PER_MESSAGE, 5). */
  perMessage: number
  /** Files a person uploads in 24 hours (AGENT_FILES_PER_DAY, 50). */
  perDay: number
  /** Bytes a person uploads in 24 hours (AGENT_FILE_BYTES_PER_DAY, 100 MB). */
  bytesPerDay: number
  /** One produced file, in bytes (AGENT_PRODUCED_FILE_MAX_BYTES, 1 MB), and how many per run (AGENT_PRODUCED_FILES_PER_RUN, 10). */
  producedMaxBytes: number
  producedPerRun: number
  /** Days a run's files are kept after the run started (AGENT_FILES_RETENTION_DAYS, 30). */
  retentionDays: number
  /** Hours an upload given to no run is kept (AGENT_FILES_UNATTACHED_HOURS, 24). */
  unattachedHours: number
}

export class FileLimitsError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'FileLimitsError'
  }
}

function positive(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new FileLimitsError(name, `expected a positive whole number, got "${raw}"`)
  return value
}

export function fileLimits(env: Record<string, string | undefined>): FileLimits {
  return {
    maxFileBytes: positive(env, 'AGENT_FILE_MAX_BYTES', 10 * MB),
    perMessage: positive(env, 'AGENT_FILES_PER_MESSAGE', 5),
    perDay: positive(env, 'AGENT_FILES_PER_DAY', 50),
    bytesPerDay: positive(env, 'AGENT_FILE_BYTES_PER_DAY', 100 * MB),
    producedMaxBytes: positive(env, 'AGENT_PRODUCED_FILE_MAX_BYTES', MB),
    producedPerRun: positive(env, 'AGENT_PRODUCED_FILES_PER_RUN', 10),
    retentionDays: positive(env, 'AGENT_FILES_RETENTION_DAYS', 30),
    unattachedHours: positive(env, 'AGENT_FILES_UNATTACHED_HOURS', 24),
  }
}

/** The multipart body the upload route may receive: every file at its maximum, plus the form's own bytes. */
export function uploadBodyLimit(limits: Pick<FileLimits, 'maxFileBytes' | 'perMessage'>): number {
  return limits.maxFileBytes * limits.perMessage + 256 * 1024
}
