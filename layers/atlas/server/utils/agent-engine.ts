import type { EngineDeps } from '../../../agents/core/engine/loop'
import { customAgentEngine } from '../../core/custom-agent-engine'

/**
 * The agent engine as the hub runs it: the AI facade, the first tools (plus delegation, offered
 * only to custom agents allowed to delegate) wired to memory, worksites, Atlas and the team
 * mail facade, per-person limits from the environment. Here (atlas, the top layer) because the
 * wiring reaches layers the engine may not import.
 */
export async function useAgentEngine(): Promise<EngineDeps> {
  const ai = useAiFacade()
  return customAgentEngine({
    db: await useDb(),
    ai,
    embedder: await useMemoryEmbedder('agent_recall'),
    vaultDir: useMemoryConfig().vaultDir,
    env: process.env,
    log: line => console.warn(line),
  })
}
