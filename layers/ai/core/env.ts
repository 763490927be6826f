// What the facade reads from the environment: keys by variable name, overridable base
// URLs, switches. Values are never copied anywhere but into request headers.
import type { ProviderId } from './catalog'

export type AiEnv = Readonly<Record<string, string | undefined>>

export const KEY_ENV: Partial<Record<ProviderId, string>> = {
  'mistral': 'MISTRAL_API_KEY',
  'anthropic': 'ANTHROPIC_API_KEY',
  'openai': 'OPENAI_API_KEY',
  'voyage': 'VOYAGE_API_KEY',
  'openai-compat': 'OPENAI_COMPAT_API_KEY',
}

export const BASE_URL_ENV: Partial<Record<ProviderId, string>> = {
  'mistral': 'MISTRAL_BASE_URL',
  'anthropic': 'ANTHROPIC_BASE_URL',
  'openai': 'OPENAI_BASE_URL',
  'voyage': 'VOYAGE_BASE_URL',
  'openai-compat': 'OPENAI_COMPAT_BASE_URL',
}

export const DEFAULT_BASE_URLS: Partial<Record<ProviderId, string>> = {
  mistral: 'https://api.mistral.ai/v1',
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  voyage: 'https://api.voyageai.com/v1',
}

function value(env: AiEnv, name: string | undefined): string | undefined {
  if (!name) return undefined
  const raw = env[name]?.trim()
  return raw ? raw : undefined
}

export function providerKey(env: AiEnv, provider: ProviderId): string | undefined {
  return value(env, KEY_ENV[provider])
}

export function providerBaseUrl(env: AiEnv, provider: ProviderId): string | undefined {
  const url = value(env, BASE_URL_ENV[provider]) ?? DEFAULT_BASE_URLS[provider]
  return url?.replace(/\/+$/, '')
}

function flag(env: AiEnv, name: string): boolean | undefined {
  const raw = value(env, name)?.toLowerCase()
  if (raw === undefined) return undefined
  return ['1', 'true', 'yes', 'on'].includes(raw)
}

/** AI_OFFLINE=1: every call answered by the offline provider, no network at all. */
export function forcedOffline(env: AiEnv): boolean {
  return flag(env, 'AI_OFFLINE') ?? false
}

/** AI_OFFLINE_FALLBACK=0 refuses the offline answer when no provider is configured. */
export function offlineFallbackAllowed(env: AiEnv): boolean {
  return flag(env, 'AI_OFFLINE_FALLBACK') ?? true
}

/** AI_AGENT_CLI=1: without ANTHROPIC_API_KEY, Anthropic completions go through headless `claude -p`. */
export function agentCliEnabled(env: AiEnv): boolean {
  return flag(env, 'AI_AGENT_CLI') ?? false
}

/** The agent binary (shared with the spawn engine). */
export function agentCliBinary(env: AiEnv): string {
  return value(env, 'SPAWN_AGENT_BIN') ?? 'claude'
}

/**
 * The prefixes the OpenAI-compatible endpoint's embedding model expects before a query and a
 * document (e5: `query: ` / `passage: `), taken verbatim (a trailing space is significant).
 * Changing them changes every vector: rebuild the index (vector-sync --rebuild).
 */
export function openAiCompatEmbedPrefixes(env: AiEnv): { query: string, document: string } {
  return { query: env.OPENAI_COMPAT_EMBED_QUERY_PREFIX ?? '', document: env.OPENAI_COMPAT_EMBED_DOCUMENT_PREFIX ?? '' }
}

/**
 * Is this address this machine (127.0.0.0/8, ::1, localhost)? An embedder served from
 * loopback has no remote rate limit to respect: no pause between its requests.
 */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false
  let host: string
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase()
  }
  catch {
    return false
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host)
}

export function openAiCompatModels(env: AiEnv): { chat?: string, embed?: string } {
  return { chat: value(env, 'OPENAI_COMPAT_MODEL'), embed: value(env, 'OPENAI_COMPAT_EMBED_MODEL') }
}

const SECRET_NAME = /(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD)$|^(NUXT_SESSION_PASSWORD|SESSION_PASSWORD)$/

/** Every secret value the environment holds (keys, tokens, passwords in URLs): what redaction hides. */
export function secretValues(env: AiEnv): string[] {
  const secrets = new Set<string>()
  for (const [name, raw] of Object.entries(env)) {
    const text = raw?.trim()
    if (!text) continue
    if (SECRET_NAME.test(name) && text.length >= 6) secrets.add(text)
    if (/_URL$/.test(name)) {
      try {
        const url = new URL(text)
        if (url.password && url.password.length >= 4) secrets.add(decodeURIComponent(url.password))
        if (url.password && url.password.length >= 4) secrets.add(url.password)
      }
      catch { /* not a URL */ }
    }
  }
  return [...secrets]
}
