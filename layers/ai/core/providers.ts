// Which providers this process can call, built once from the environment: a client for
// each configured provider, null for the others (a missing key means "skip").
import { ofetch, type $Fetch } from 'ofetch'
import { COMPLETION_PROVIDERS, EMBEDDING_PROVIDERS, PROVIDERS, PROVIDER_LABELS, type ProviderId, type Via } from './catalog'
import { agentCliBinary, agentCliEnabled, BASE_URL_ENV, KEY_ENV, openAiCompatEmbedPrefixes, providerBaseUrl, providerKey, type AiEnv } from './env'
import { displayUrl } from './redact'
import { createAgentCliClient } from './clients/agent-cli'
import { createAnthropicClient } from './clients/anthropic'
import { createMistralClient } from './clients/mistral'
import { createOfflineClient } from './clients/offline'
import { createOpenAiClient, createOpenAiCompatClient } from './clients/openai'
import { spawnProcess, type ProcessRunner } from './clients/process-runner'
import { createVoyageClient } from './clients/voyage'
import type { ProviderClient } from './clients/types'
import type { OfflineRule } from './offline/rules'

export interface ProviderRegistryOptions {
  env: AiEnv
  fetch?: $Fetch
  runner?: ProcessRunner
  offlineRules?: Record<string, OfflineRule>
}

export interface ProviderStatus {
  provider: ProviderId
  label: string
  configured: boolean
  via: Via | null
  /** The variable the key is read from (never its value). */
  keyEnv: string | null
  baseUrlEnv: string | null
  /** Where requests go, without credentials or query. */
  baseUrl: string | null
  capabilities: Array<'completion' | 'embedding'>
  note: string
}

export interface ProviderRegistry {
  client: (provider: ProviderId) => ProviderClient | null
  status: () => ProviderStatus[]
}

function build(provider: ProviderId, options: ProviderRegistryOptions, fetcher: $Fetch): { client: ProviderClient | null, note: string } {
  const { env } = options
  const key = providerKey(env, provider)
  const baseUrl = providerBaseUrl(env, provider)
  switch (provider) {
    case 'mistral':
      return key && baseUrl ? { client: createMistralClient({ fetch: fetcher, baseUrl, apiKey: key }), note: '' } : { client: null, note: 'no MISTRAL_API_KEY' }
    case 'openai':
      return key && baseUrl ? { client: createOpenAiClient({ fetch: fetcher, baseUrl, apiKey: key }), note: '' } : { client: null, note: 'no OPENAI_API_KEY' }
    case 'voyage':
      return key && baseUrl ? { client: createVoyageClient({ fetch: fetcher, baseUrl, apiKey: key }), note: 'embeddings only' } : { client: null, note: 'no VOYAGE_API_KEY' }
    case 'anthropic':
      if (key && baseUrl) return { client: createAnthropicClient({ fetch: fetcher, baseUrl, apiKey: key }), note: 'completions only' }
      if (agentCliEnabled(env)) {
        return { client: createAgentCliClient({ binary: agentCliBinary(env), runner: options.runner ?? spawnProcess, env }), note: 'no ANTHROPIC_API_KEY: through the agent CLI (claude -p)' }
      }
      return { client: null, note: 'no ANTHROPIC_API_KEY (AI_AGENT_CLI=1 would use the agent CLI)' }
    case 'openai-compat':
      return baseUrl ? { client: createOpenAiCompatClient({ fetch: fetcher, baseUrl, apiKey: key, inputPrefixes: openAiCompatEmbedPrefixes(env) }), note: key ? '' : 'no key (none needed by most self-hosted servers)' } : { client: null, note: 'no OPENAI_COMPAT_BASE_URL' }
    case 'offline':
      return { client: createOfflineClient(options.offlineRules), note: 'deterministic rules and hashed embeddings, no model' }
  }
}

export function createProviderRegistry(options: ProviderRegistryOptions): ProviderRegistry {
  const fetcher = options.fetch ?? ofetch
  const built = new Map(PROVIDERS.map(provider => [provider, build(provider, options, fetcher)]))
  return {
    client: provider => built.get(provider)?.client ?? null,
    status: () => PROVIDERS.map((provider) => {
      const entry = built.get(provider)!
      const capabilities: ProviderStatus['capabilities'] = []
      if (COMPLETION_PROVIDERS.includes(provider) && provider !== 'voyage') capabilities.push('completion')
      if (EMBEDDING_PROVIDERS.includes(provider)) capabilities.push('embedding')
      return {
        provider,
        label: PROVIDER_LABELS[provider],
        configured: entry.client !== null,
        via: entry.client?.via ?? null,
        keyEnv: KEY_ENV[provider] ?? null,
        baseUrlEnv: BASE_URL_ENV[provider] ?? null,
        baseUrl: entry.client?.via === 'api' ? displayUrl(providerBaseUrl(options.env, provider)) : null,
        capabilities: provider === 'anthropic' ? ['completion'] : capabilities,
        note: entry.note,
      }
    }),
  }
}
