// The router's thresholds are settings (issue 21 Deliver 3): SKILLS_ROUTER_HIGH and
// SKILLS_ROUTER_LOW (0–1, low ≤ high), defaults in router.ts and docs/agents-and-skills.md.
import { z } from 'zod'
import { DEFAULT_ROUTER_SETTINGS, type RouterSettings } from './router'

const score = z.coerce.number().min(0).max(1)

export function routerSettings(env: Record<string, string | undefined>): RouterSettings {
  const high = env.SKILLS_ROUTER_HIGH ? score.parse(env.SKILLS_ROUTER_HIGH) : DEFAULT_ROUTER_SETTINGS.high
  const low = env.SKILLS_ROUTER_LOW ? score.parse(env.SKILLS_ROUTER_LOW) : DEFAULT_ROUTER_SETTINGS.low
  if (low > high) throw new Error(`SKILLS_ROUTER_LOW (${low}) must not exceed SKILLS_ROUTER_HIGH (${high})`)
  return { ...DEFAULT_ROUTER_SETTINGS, high, low }
}
