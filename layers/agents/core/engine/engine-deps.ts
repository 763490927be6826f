// What the agent engine is given: the database, the model facade, the tools and their ports,
// the limits and the routers the hub wires in.
import type { Db } from '#db/connection'
import type { ToolChatRequest, ToolChatResult } from '#layers/ai/core/tool-chat'
import type { ProviderAvailability } from './models'
import type { ToolPorts } from './ports'
import type { SkillRouterPort } from './skills'
import type { ToolRegistry } from './tools'
import type { PersonLimits } from './usage'

export interface EngineDeps {
  db: Db
  /** The facade's chatWithTools. */
  chat: (request: ToolChatRequest) => Promise<ToolChatResult>
  /** Waits for the ledger rows (the run's cost is read from them). */
  flushLedger?: () => Promise<void>
  registry: ToolRegistry
  ports: ToolPorts
  now?: () => Date
  log?: (line: string) => void
  /** Per-person limits checked before a run starts (none: unlimited). */
  limits?: PersonLimits
  /** Which providers can answer now (the Auto rule of models.ts; none given: all count as unavailable). */
  providers?: () => ProviderAvailability[]
  /** The skills library's router (wired by the hub); none: only the caller's forced skills. */
  skillRouter?: SkillRouterPort
}

export const clock = (deps: EngineDeps) => (deps.now ?? (() => new Date()))()
