// One fake per provider, started together, with the environment that points the facade at
// them (keys as given; base URLs overridden to the loopback fakes).
import { anthropicLike, openAiStyle, voyageLike } from './providers'
import { startFakeServer, type FakeServer } from './server'

export interface Fleet {
  mistral: FakeServer
  anthropic: FakeServer
  openai: FakeServer
  voyage: FakeServer
  compat: FakeServer
  all: FakeServer[]
  env: (keys: Partial<Record<'MISTRAL_API_KEY' | 'ANTHROPIC_API_KEY' | 'OPENAI_API_KEY' | 'VOYAGE_API_KEY' | 'OPENAI_COMPAT', string>>, extra?: Record<string, string>) => Record<string, string>
  reset: () => void
  close: () => Promise<void>
}

export async function startFleet(keys: { mistral?: string, anthropic?: string, openai?: string, voyage?: string } = {}): Promise<Fleet> {
  const mistral = await startFakeServer(openAiStyle({ key: keys.mistral, flavour: 'mistral' }))
  const anthropic = await startFakeServer(anthropicLike({ key: keys.anthropic }))
  const openai = await startFakeServer(openAiStyle({ key: keys.openai, flavour: 'openai', modelSuffix: '-2024-08-06' }))
  const voyage = await startFakeServer(voyageLike({ key: keys.voyage }))
  const compat = await startFakeServer(openAiStyle({ flavour: 'openai' }))
  const all = [mistral, anthropic, openai, voyage, compat]
  return {
    mistral, anthropic, openai, voyage, compat, all,
    env: (set, extra = {}) => {
      const env: Record<string, string> = {
        MISTRAL_BASE_URL: `${mistral.url}/v1`,
        ANTHROPIC_BASE_URL: anthropic.url,
        OPENAI_BASE_URL: `${openai.url}/v1`,
        VOYAGE_BASE_URL: `${voyage.url}/v1`,
        ...extra,
      }
      for (const name of ['MISTRAL_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'VOYAGE_API_KEY'] as const) {
        if (set[name]) env[name] = set[name]
      }
      if (set.OPENAI_COMPAT) env.OPENAI_COMPAT_BASE_URL = `${compat.url}/v1`
      return env
    },
    reset: () => all.forEach(server => server.reset()),
    close: async () => {
      await Promise.all(all.map(server => server.close()))
    },
  }
}

export const KEYS = { MISTRAL_API_KEY: 'mistral-key', ANTHROPIC_API_KEY: 'anthropic-key', OPENAI_API_KEY: 'openai-key', VOYAGE_API_KEY: 'voyage-key' }
