// The `offline` provider: no network, no model, no cost; its model names say "offline".
import { BUILT_IN_RULES, OFFLINE_NOTICE, genericJson, type OfflineRule } from '../offline/rules'
import { offlineEmbedding } from '../offline/embed'
import { offlineToolTurn } from '../offline/tool-plan'
import { conversation } from './tool-wire'
import type { ProviderClient } from './types'

export const OFFLINE_CHAT_MODEL = 'offline-rules-v1'
export const OFFLINE_EMBED_MODEL = 'offline-hash-1024'

export function createOfflineClient(extraRules: Record<string, OfflineRule> = {}): ProviderClient {
  const rules = { ...BUILT_IN_RULES, ...extraRules }
  return {
    provider: 'offline',
    via: 'local',
    async chat(request) {
      if (request.tools && request.tools.length > 0)
        return { ...offlineToolTurn(request, conversation(request)), model: OFFLINE_CHAT_MODEL }
      const rule = rules[request.feature]
      const content = request.json
        ? JSON.stringify((rule ?? genericJson)({ prompt: request.prompt, system: request.system }))
        : `${OFFLINE_NOTICE} (${request.prompt.length} characters received for "${request.feature}")`
      return { content, model: OFFLINE_CHAT_MODEL, tokensIn: 0, tokensOut: 0 }
    },
    async embed(request) {
      return { vectors: request.texts.map(text => offlineEmbedding(text, request.dimensions)), model: OFFLINE_EMBED_MODEL, tokensIn: 0 }
    },
  }
}
