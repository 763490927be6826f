// The agents routes run the engine the hub layer wires (layers/hub/server/plugins/agent-engine.ts):
// its tools reach memory, worksites, Atlas and the team mail, which the agent engine may not
// import, so the layer on top provides it at start-up and the routes ask for it here.
import type { EngineDeps } from '#layers/agents/core/engine/loop'

let provider: (() => Promise<EngineDeps>) | undefined

export function provideAgentEngine(build: () => Promise<EngineDeps>): void {
  provider = build
}

export async function useAgentEngine(): Promise<EngineDeps> {
  if (!provider) throw new Error('no agent engine was provided: the hub layer\'s plugin (layers/hub/server/plugins/agent-engine.ts) did not run')
  return await provider()
}
