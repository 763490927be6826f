import type { EngineDeps } from '#layers/agents/core/engine/loop'
import type { SkillRouterPort } from '#layers/agents/core/engine/skills'
import { skillRouterPort } from '#layers/skills/core/port'
import { routerSettings } from '#layers/skills/core/settings'
import { customAgentEngine } from '#layers/hub/core/custom-agent-engine'
import { agentFileGuards } from '#layers/hub/core/agent-file-guards'
import { fileLimits } from '#layers/agents/core/files/limits'

let skillRouter: SkillRouterPort | undefined
let fileGuards: ReturnType<typeof agentFileGuards> | undefined

/** One set of file guards per hub process: the OCR worker is kept across images and closed with the hub. */
const hubFileGuards = () => (fileGuards ??= agentFileGuards({ env: process.env, maxFileBytes: fileLimits(process.env).maxFileBytes }))

/**
 * Provides the agents routes (useAgentEngine, layers/agents/server/utils/agent-engine.ts) with
 * the agent engine as the hub runs it: the AI facade, the first tools (plus delegation, offered
 * only to custom agents allowed to delegate) wired to memory, worksites, Atlas and the team
 * mail facade, per-person limits from the environment, and the skills library's router. Here
 * (hub, the wiring layer on top) because the wiring reaches layers the engine may not import.
 */
async function hubAgentEngine(): Promise<EngineDeps> {
  const ai = useAiFacade()
  const db = await useDb()
  const embedder = await useMemoryEmbedder('agent_recall')
  return customAgentEngine({
    db,
    ai,
    embedder,
    vaultDir: useMemoryConfig().vaultDir,
    env: process.env,
    // The person's enabled skills, indexed once per library state (kept across requests); candidates from the memory's recall.
    skillRouter: (skillRouter ??= skillRouterPort(db, embedder, routerSettings(process.env), line => console.warn(line))),
    fileGuards: hubFileGuards(),
    log: line => console.warn(line),
  })
}

export default defineNitroPlugin((nitro) => {
  provideAgentEngine(hubAgentEngine)
  provideAgentFileGuards(hubFileGuards)
  nitro.hooks.hook('close', async () => {
    await fileGuards?.close()
  })
})
