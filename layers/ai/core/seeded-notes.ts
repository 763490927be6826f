// The notes the hub writes itself, in English, that the AI page shows: the notes the migrations
// seed on ai_routing rows (0004, 0028), by feature, and the providers' notes (providers.ts), by
// text. The page shows them in the reader's language (ai.routing.notes.*, ai.providers.notes.*)
// while they read as seeded; a note a person wrote on a routing row is shown as written.
export const SEEDED_ROUTING_NOTES: Record<string, string> = {
  default: 'global fallback row: every feature inherits what its own row leaves empty',
  atlas_classify: 'Atlas intent classification: strict JSON, 30 s',
  health_care_note: 'Nightingale\'s care note in the health report: at most three sentences, English',
}

export const PROVIDER_NOTE_KEYS: Record<string, string> = {
  'embeddings only': 'embeddingsOnly',
  'completions only': 'completionsOnly',
  'no ANTHROPIC_API_KEY: through the agent CLI (claude -p)': 'throughAgentCli',
  'no ANTHROPIC_API_KEY (AI_AGENT_CLI=1 would use the agent CLI)': 'agentCliWouldServe',
  'no key (none needed by most self-hosted servers)': 'noKeyNeeded',
  'deterministic rules and hashed embeddings, no model': 'offline',
}
/** "no MISTRAL_API_KEY": the variable a provider misses. */
export const MISSING_VARIABLE = /^no ([A-Z][A-Z0-9_]*)$/

/** A provider's note as its catalog key and values (ai.providers.notes.*); none for any other note. */
export function providerNoteKey(note: string): { key: string, values: Record<string, string> } | undefined {
  const key = PROVIDER_NOTE_KEYS[note]
  if (key) return { key: `ai.providers.notes.${key}`, values: {} }
  const missing = MISSING_VARIABLE.exec(note)
  return missing ? { key: 'ai.providers.notes.noVariable', values: { variable: missing[1]! } } : undefined
}

/** The price notes the migrations seed on ai_prices rows (0004), as seeded, by text. */
const PRICE_NOTE_KEYS: Record<string, string> = {
  'list price, embeddings': 'listPriceEmbeddings',
  'self-hosted endpoint: no per-token price': 'selfHosted',
  'offline provider: no model, no cost': 'offline',
}
/** "list price, Claude Haiku 4.5": a list price named after its model. */
const LIST_PRICE = /^list price, (.+)$/

/** A seeded price note as its catalog key and values (ai.prices.notes.*); none for a note a person wrote. */
export function priceNoteKey(note: string): { key: string, values: Record<string, string> } | undefined {
  const key = PRICE_NOTE_KEYS[note]
  if (key) return { key: `ai.prices.notes.${key}`, values: {} }
  const listed = LIST_PRICE.exec(note)
  return listed ? { key: 'ai.prices.notes.listPrice', values: { model: listed[1]! } } : undefined
}
