// The providers the facade knows, their default models and the seed's canonical routing.
// One place for every model name the code chooses by itself.

export const PROVIDERS = ['mistral', 'anthropic', 'openai', 'voyage', 'openai-compat', 'offline'] as const
export type ProviderId = typeof PROVIDERS[number]

export const COMPLETION_PROVIDERS: readonly ProviderId[] = ['mistral', 'anthropic', 'openai', 'openai-compat', 'offline']
export const EMBEDDING_PROVIDERS: readonly ProviderId[] = ['mistral', 'voyage', 'openai', 'openai-compat', 'offline']

/** The sovereign failover order (FR/EU first). */
export const SOVEREIGN_ORDER: readonly ProviderId[] = ['mistral', 'anthropic', 'openai']

/** When the routed embedding provider has no key: the first configured of these (deterministic for a given setup). */
export const EMBEDDING_SUBSTITUTES: readonly ProviderId[] = ['mistral', 'voyage', 'openai', 'openai-compat']

export type Via = 'api' | 'agent-cli' | 'local'

/** generateContent's default models (the realignment targets on failover). */
export const GENERATION_DEFAULT_MODELS: Partial<Record<ProviderId, string>> = {
  mistral: 'mistral-large-latest',
  anthropic: 'claude-sonnet-4-6',
  openai: 'gpt-4o',
  offline: 'offline-rules-v1',
}

/** complete()'s default models per provider. */
export const COMPLETION_DEFAULT_MODELS: Partial<Record<ProviderId, string>> = {
  anthropic: 'claude-haiku-4-5',
  mistral: 'mistral-large-latest',
  openai: 'gpt-4o-mini',
  offline: 'offline-rules-v1',
}

/** embed()'s default models per provider. */
export const EMBEDDING_DEFAULT_MODELS: Partial<Record<ProviderId, string>> = {
  mistral: 'mistral-embed',
  voyage: 'voyage-3',
  openai: 'text-embedding-3-small',
  offline: 'offline-hash-1024',
}

/** The vector index's dimension, everywhere. */
export const EMBEDDING_DIMENSIONS = 1024

/** Short Anthropic aliases → full model ids. */
export const ANTHROPIC_ALIASES: Record<string, string> = {
  haiku: 'claude-haiku-4-5',
  sonnet: 'claude-sonnet-4-6',
  opus: 'claude-opus-4-6',
}

export const GENERATION_TIMEOUT_MS = 120_000
export const CLASSIFICATION_TIMEOUT_MS = 30_000
export const EMBEDDING_TIMEOUT_MS = 30_000
/** The seed's throttle between embedding calls (rate limits). */
export const EMBEDDING_THROTTLE_MS = 1_300
/** Inputs per embedding request. */
export const EMBEDDING_BATCH_SIZE = 50

export function isProvider(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value)
}

export function resolveAnthropicModel(model: string): string {
  return ANTHROPIC_ALIASES[model.trim().toLowerCase()] ?? model
}

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  'mistral': 'Mistral',
  'anthropic': 'Anthropic',
  'openai': 'OpenAI',
  'voyage': 'Voyage',
  'openai-compat': 'OpenAI-compatible (self-hosted)',
  'offline': 'Offline (no model)',
}
