// Database-driven routing, the pure part: merging a feature's row with the global row
// ('default') and, under them, the canonical defaults. A null column inherits.
import { AI_ROUTING_GLOBAL, type AiRoutingParams } from '#db/schema/ai'
import { COMPLETION_DEFAULT_MODELS, COMPLETION_PROVIDERS, EMBEDDING_DEFAULT_MODELS, EMBEDDING_DIMENSIONS, EMBEDDING_PROVIDERS, type ProviderId } from './catalog'

export interface RoutingLayer {
  feature: string
  completeProvider: string | null
  completeModel: string | null
  embedProvider: string | null
  embedModel: string | null
  params: AiRoutingParams
}

/** The seed's canonical defaults, used when the table is empty or the database unreachable. */
export const CANONICAL_ROUTING: Record<string, RoutingLayer> = {
  [AI_ROUTING_GLOBAL]: {
    feature: AI_ROUTING_GLOBAL,
    completeProvider: 'anthropic',
    completeModel: 'claude-haiku-4-5',
    embedProvider: 'mistral',
    embedModel: 'mistral-embed',
    params: { dimensions: EMBEDDING_DIMENSIONS },
  },
  atlas_classify: {
    feature: 'atlas_classify',
    completeProvider: 'mistral',
    completeModel: 'mistral-small-latest',
    embedProvider: null,
    embedModel: null,
    params: { timeoutMs: 30_000 },
  },
}

export type RouteKind = 'complete' | 'embed'

export interface Route {
  provider: ProviderId
  model: string | null
  params: AiRoutingParams
  /** Where the provider came from: the feature's row, the global row, or the canonical defaults. */
  source: 'feature' | 'global' | 'canonical'
}

export interface RoutingRows {
  /** The table's rows for this feature and for 'default' (either may be missing). */
  feature?: RoutingLayer
  global?: RoutingLayer
  /** True when the table has no row at all, or could not be read. */
  useCanonical: boolean
}

function layersFor(feature: string, rows: RoutingRows): Array<{ layer: RoutingLayer, source: Route['source'] }> {
  if (rows.useCanonical) {
    const own = CANONICAL_ROUTING[feature]
    return [
      ...(own && feature !== AI_ROUTING_GLOBAL ? [{ layer: own, source: 'canonical' as const }] : []),
      { layer: CANONICAL_ROUTING[AI_ROUTING_GLOBAL]!, source: 'canonical' as const },
    ]
  }
  return [
    ...(rows.feature && feature !== AI_ROUTING_GLOBAL ? [{ layer: rows.feature, source: 'feature' as const }] : []),
    ...(rows.global ? [{ layer: rows.global, source: 'global' as const }] : []),
    { layer: CANONICAL_ROUTING[AI_ROUTING_GLOBAL]!, source: 'canonical' as const },
  ]
}

export function mergeRoute(kind: RouteKind, feature: string, rows: RoutingRows): Route {
  const layers = layersFor(feature, rows)
  const providerOf = (layer: RoutingLayer) => (kind === 'complete' ? layer.completeProvider : layer.embedProvider)
  const modelOf = (layer: RoutingLayer) => (kind === 'complete' ? layer.completeModel : layer.embedModel)
  const allowed: readonly string[] = kind === 'complete' ? COMPLETION_PROVIDERS : EMBEDDING_PROVIDERS
  // An unknown or unsuitable provider name in a row is ignored (the next layer decides).
  const chosen = layers.find(({ layer }) => allowed.includes(providerOf(layer) ?? ''))!
  const provider = providerOf(chosen.layer) as ProviderId
  // A model applies when its row names the same provider, or names none (a model-only override).
  const withModel = layers.find(({ layer }) => {
    const model = modelOf(layer)
    const own = providerOf(layer)
    return Boolean(model) && (own === null || own === provider)
  })
  const defaults = kind === 'complete' ? COMPLETION_DEFAULT_MODELS : EMBEDDING_DEFAULT_MODELS
  const params: AiRoutingParams = {}
  for (const { layer } of [...layers].reverse()) Object.assign(params, layer.params)
  return {
    provider,
    model: (withModel && modelOf(withModel.layer)) || defaults[provider] || null,
    params,
    source: chosen.source,
  }
}
