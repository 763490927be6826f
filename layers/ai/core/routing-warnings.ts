// What the routing editor warns about, without forbidding it: a provider that is not
// configured (its calls would fail over elsewhere) and a model the price catalogue
// (ai_prices) does not know (a typo, or a model whose cost the ledger cannot estimate).

export interface ProviderState { provider: string, configured: boolean, keyEnv: string | null }
export interface KnownPrice { provider: string, model: string }

export function routingWarnings(choice: { provider: string | null, model: string | null }, providers: ProviderState[], prices: KnownPrice[]): string[] {
  const warnings: string[] = []
  const provider = choice.provider ? providers.find(p => p.provider === choice.provider) : undefined
  if (provider && !provider.configured) {
    warnings.push(`${provider.provider} is not configured${provider.keyEnv ? ` (set ${provider.keyEnv})` : ''}: calls routed here fail over to the next provider.`)
  }
  const model = choice.model?.trim()
  if (model) {
    const candidates = prices.filter(p => !choice.provider || p.provider === choice.provider)
    if (!candidates.some(p => p.model === model)) {
      const wildcard = choice.provider && candidates.some(p => p.model === '*')
      warnings.push(`"${model}" is not in the price catalogue${choice.provider ? ` for ${choice.provider}` : ''}: check its spelling${wildcard ? `; its cost will use ${choice.provider}'s '*' price` : '; its cost cannot be estimated until a price is added'}.`)
    }
  }
  return warnings
}
