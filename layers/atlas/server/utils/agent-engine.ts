import { firstToolRegistry } from '../../../agents/core/engine/first-tools'
import type { EngineDeps } from '../../../agents/core/engine/loop'
import type { SkillRouterPort } from '../../../agents/core/engine/skills'
import type { ToolRegistry } from '../../../agents/core/engine/tools'
import { personLimits } from '../../../agents/core/engine/usage'
import { hubToolPorts } from '../../core/agent-ports'
import { skillRouterPort } from '../../../skills/core/port'
import { routerSettings } from '../../../skills/core/settings'
import { createMailer, readMailConfig, type Mailer } from '../../core/mail/mailer'

let registry: ToolRegistry | undefined
let mailer: Mailer | undefined
let skillRouter: SkillRouterPort | undefined

/**
 * The agent engine as the hub runs it: the AI facade, the first tools wired to memory,
 * worksites, Atlas and the team mail facade, per-person limits from the environment. Here
 * (atlas, the top layer) because the wiring reaches layers the engine may not import.
 */
export async function useAgentEngine(): Promise<EngineDeps> {
  const db = await useDb()
  const ai = useAiFacade()
  registry ??= firstToolRegistry()
  const mail = readMailConfig(process.env)
  return {
    db,
    chat: request => ai.chatWithTools(request),
    flushLedger: () => ai.flush(),
    registry,
    ports: hubToolPorts({
      db,
      embedder: await useMemoryEmbedder('agent_recall'),
      vaultDir: useMemoryConfig().vaultDir,
      team: mail.team,
      mailer: () => (mailer ??= createMailer({ config: mail, db })),
    }),
    limits: personLimits(process.env),
    providers: () => ai.providers(),
    // The skills library's router: the person's enabled skills, indexed once per library state.
    skillRouter: (skillRouter ??= skillRouterPort(db, routerSettings(process.env))),
    log: line => console.warn(line),
  }
}
