// The agents API's inputs (checked by zod at the route boundary) and how the core's errors
// become HTTP answers with a machine-readable code.
import { z } from 'zod'
import { MAX_SCARS } from './briefing'
import { AgentsError } from './errors'
import { AGENT_FAMILIES, CODENAME_PATTERN, DOMAIN_PATTERN } from './families'
import { LANGS, TIERS } from './persona'

const flag = z.enum(['true', 'false', 'all'])

export const AgentsQuery = z.object({
  domain: z.string().trim().toLowerCase().regex(DOMAIN_PATTERN, 'domain: lower-case letters, digits, "-" or "_"').optional(),
  family: z.enum(AGENT_FAMILIES).optional(),
  ring: z.coerce.number().int().min(1).max(3).optional(),
  /** Default: every agent, or only the active ones when a domain is asked (routing). */
  active: flag.optional(),
})

export function filtersOf(query: z.infer<typeof AgentsQuery>) {
  const active = query.active ?? (query.domain ? 'true' : 'all')
  return { domain: query.domain, family: query.family, ring: query.ring, active: active === 'all' ? undefined : active === 'true' }
}

export const CodenameParams = z.object({
  codename: z.string().regex(CODENAME_PATTERN, 'codename: kebab-case').max(64),
})

export const BriefingQuery = z.object({
  tier: z.enum(TIERS).default('metier'),
  lang: z.enum(LANGS).default('en'),
  task: z.string().trim().max(6000).optional(),
  project: z.string().trim().max(64).optional(),
  scars: z.coerce.number().int().min(0).max(MAX_SCARS).optional(),
})

const STATUS: Record<AgentsError['code'], number> = { unknown_agent: 404, bad_domain: 400, bad_filter: 400, bad_outcome: 400, bad_state: 400, bad_briefing_input: 400 }

export function agentsApiError(error: unknown): { statusCode: number, statusMessage: string, data: { code: string } } | null {
  if (error instanceof AgentsError) return { statusCode: STATUS[error.code], statusMessage: error.message, data: { code: error.code } }
  return null
}
