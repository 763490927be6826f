// What the routing editor warns about, without forbidding it: a provider that is not
// configured (its calls would fail over elsewhere) and a model the price catalogue
// (ai_prices) does not know (a typo, or a model whose cost the ledger cannot estimate).

export interface ProviderState { provider: string, configured: boolean, keyEnv: string | null }
export interface KnownPrice { provider: string, model: string }

/** The warnings in English; the page says them in the hub's language (ai.routingWarnings.… in the ai catalog). */
const ENGLISH = {
  unconfigured: '{provider} is not configured: calls routed here fail over to the next provider.',
  unconfiguredKey: '{provider} is not configured (set {keyEnv}): calls routed here fail over to the next provider.',
  unpriced: '"{model}" is not in the price catalogue: check its spelling; its cost cannot be estimated until a price is added.',
  unpricedFor: '"{model}" is not in the price catalogue for {provider}: check its spelling; its cost cannot be estimated until a price is added.',
  unpricedWildcard: '"{model}" is not in the price catalogue for {provider}: check its spelling; its cost will use {provider}\'s \'*\' price.',
} as const

export type RoutingWarningKey = keyof typeof ENGLISH
/** Puts a warning into words: English by default, the page's catalog on a page. */
export type SayWarning = (key: RoutingWarningKey, values: Record<string, string>) => string

const english: SayWarning = (key, values) => ENGLISH[key].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole)

export function routingWarnings(
  choice: { provider: string | null, model: string | null },
  providers: ProviderState[],
  prices: KnownPrice[],
  say: SayWarning = english,
): string[] {
  const warnings: string[] = []
  const provider = choice.provider ? providers.find(p => p.provider === choice.provider) : undefined
  if (provider && !provider.configured) {
    warnings.push(
      provider.keyEnv
        ? say('unconfiguredKey', { provider: provider.provider, keyEnv: provider.keyEnv })
        : say('unconfigured', { provider: provider.provider }),
    )
  }
  const model = choice.model?.trim()
  if (model) {
    const candidates = prices.filter(p => !choice.provider || p.provider === choice.provider)
    if (!candidates.some(p => p.model === model)) {
      const wildcard = choice.provider && candidates.some(p => p.model === '*')
      if (!choice.provider) warnings.push(say('unpriced', { model }))
      else warnings.push(say(wildcard ? 'unpricedWildcard' : 'unpricedFor', { model, provider: choice.provider }))
    }
  }
  return warnings
}
