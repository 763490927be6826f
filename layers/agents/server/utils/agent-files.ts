// The upload route's antivirus, OCR and fence come from the hub layer (layers/hub/server/plugins/agent-engine.ts),
// which may import Atlas and spawn where the agents layer may not.
import type { FileGuards } from '#layers/agents/core/files/ports'

let guards: (() => FileGuards) | undefined

export function provideAgentFileGuards(build: () => FileGuards): void {
  guards = build
}

export function useAgentFileGuards(): FileGuards {
  if (!guards) throw new Error('no file guards were provided: the hub layer\'s plugin (layers/hub/server/plugins/agent-engine.ts) did not run')
  return guards()
}
