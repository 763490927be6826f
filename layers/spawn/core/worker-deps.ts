// What the spawn worker is given (its dependencies) and what a spawn's run hands back.
import type { Browser } from 'playwright-core'
import type { Db } from '#db/client'
import type { ImportanceScorer } from '#layers/memory/core/lessons'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import type { SpawnConfig } from './config'
import type { OnSpawnFinished } from './hooks'
import type { TeamMail } from './notify'
import type { SpawnPorts } from './ports'
import type { SpawnQueue } from './queue'
import type { AgentUser } from './workspace'

export interface WorkerDeps extends SpawnPorts {
  db: Db
  queue: SpawnQueue
  config: SpawnConfig
  /**
   * The worker's environment: the deploy gets it whole; the agent only its allowlist (PATH,
   * LANG, the model credential… see sandbox.ts), never the database or the mail's secrets.
   */
  env: Readonly<Record<string, string | undefined>>
  /** The user agents run as (resolved from SPAWN_AGENT_USER when the worker is root; null: as the worker). */
  agentUser?: AgentUser | null
  mail: TeamMail
  host: string
  pid: number
  /** For the audit: the automate's name. */
  actor: string
  log: (line: string) => void
  onSpawnFinished?: OnSpawnFinished
  launchBrowser?: () => Promise<Browser>
  /** Stops the worker: no new job, running agents stopped, their messages spawnable again. */
  signal?: AbortSignal
  /** Measurements: a job was claimed / its agent process started. */
  onTiming?: (timing: { spawnId: string, claimedAt: number, agentStartedAt: number }) => void
  /**
   * The memory's embedder: the briefing's hybrid recall and the immediate re-indexing of the
   * lessons a spawn produces. Absent: the worker builds one on the AI facade from `env`.
   */
  embedder?: Embedder
  /** Scores a new lesson's importance in the background (absent: the AI facade's, from `env`). */
  scoreImportance?: ImportanceScorer
  /** Receives background work (the importance scoring): tests await it. */
  background?: (work: Promise<unknown>) => void
}

export interface FollowUp { spawnId: string, messageId: number, iteration: number }

export interface Finished { outcome: string, followUp: FollowUp | null }
