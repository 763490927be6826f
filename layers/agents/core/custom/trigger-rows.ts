// A trigger as the editor sends it (TriggerInput) and as agent_triggers stores it. Every save
// rewrites the agent's trigger rows, so a webhook trigger that names its slug keeps its hook
// (URL and sealed secret) from the rows being replaced; without one — or naming a slug that is
// not this agent's — it gets a new hook, its secret made on the first "show secret".
import type { AgentTrigger } from '#db/schema/custom-agents'
import { TriggerInput } from './triggers'
import { newHook } from './webhook-secrets'
import { webhookChoices } from './webhooks'

/** A trigger as pages and routes see it: never its secret, only whether it has one. */
export type PublicTrigger = Omit<AgentTrigger, 'hookSecret'> & { hasSecret: boolean }

export function publicTrigger(row: AgentTrigger): PublicTrigger {
  const { hookSecret, ...rest } = row
  return { ...rest, hasSecret: hookSecret !== null }
}

export function triggerRows(name: string, triggers: TriggerInput[], current: Array<Pick<AgentTrigger, 'hookSlug' | 'hookSecret'>>) {
  const secrets = new Map(current.flatMap(row => (row.hookSlug ? [[row.hookSlug, row.hookSecret] as const] : [])))
  const kept = new Set<string>()
  return triggers.map((trigger) => {
    const base = { codename: name, kind: trigger.kind, cron: null as string | null, event: null as string | null, filters: [] as AgentTrigger['filters'], hookSlug: null as string | null, hookSecret: null as string | null }
    if (trigger.kind === 'schedule') return { ...base, cron: trigger.cron }
    if (trigger.kind === 'event' || trigger.kind === 'mail') return { ...base, event: trigger.event, filters: trigger.filters }
    if (trigger.kind === 'mention') return base
    // The same slug twice in one save would share a secret: the second becomes a new hook.
    const keep = trigger.slug !== undefined && secrets.has(trigger.slug) && !kept.has(trigger.slug)
    const slug = keep ? trigger.slug! : newHook().slug
    kept.add(slug)
    return { ...base, event: trigger.events.join(','), filters: trigger.branch ? [{ field: 'branch', op: 'eq' as const, value: trigger.branch }] : [], hookSlug: slug, hookSecret: keep ? secrets.get(slug) ?? null : null }
  })
}

/** The editor's form of a stored trigger (a duplicate passes `withHook: false`: the copy gets its own hook). */
export function triggerInputOf(row: Pick<AgentTrigger, 'kind' | 'cron' | 'event' | 'filters' | 'hookSlug'>, withHook = true): TriggerInput {
  if (row.kind === 'schedule') return TriggerInput.parse({ kind: 'schedule', cron: row.cron })
  if (row.kind === 'mention') return TriggerInput.parse({ kind: 'mention' })
  if (row.kind === 'webhook') return TriggerInput.parse({ kind: 'webhook', ...webhookChoices(row), ...(withHook && row.hookSlug ? { slug: row.hookSlug } : {}) })
  return TriggerInput.parse({ kind: row.kind, event: row.event, filters: row.filters })
}
