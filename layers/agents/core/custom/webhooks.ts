// A webhook delivery into a custom agent (issue 34, Deliver 6): the hook's URL names one
// webhook trigger; the delivery must be small enough, signed with the trigger's secret, new
// (its delivery id never seen for this hook) and of an event the trigger listens to. Then
// the dispatcher fires the trigger (caps, kill switch and dedup as for every other trigger)
// with a request whose trusted part is a short summary and whose payload is fenced as
// untrusted data. Every refusal is audited without the body or the secret; an address that
// keeps being refused is answered 429 without further audit rows for a while.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { recordAudit } from '#db/audit'
import { agentCustom, agentTriggers, agentWebhookDeliveries } from '#db/schema/custom-agents'
import { fireTrigger, type DispatchDeps } from './dispatcher'
import { deliveryId, forgeEvent, hookWants, signatureValid, summarise, type ForgeHeaders, type ForgeSummary } from './forge'
import { HookSlug, WEBHOOK_EVENTS } from './triggers'
import { openSecret } from './webhook-secrets'

/** A delivery larger than this is refused (GitHub's push payloads are a few kB; the hub's own limit is 1 MB). */
export const HOOK_BODY_LIMIT = 512 * 1024
/** The part of the payload the run is given (the rest is cut: the agent can ask the forge). */
const PAYLOAD_IN_REQUEST = 16_000

/** How the hub fences third-party text for a model (spawn's untrusted blocks, one nonce per request). */
export interface UntrustedFence {
  line: (value: string, max: number) => string
  block: (what: string, lines: string[]) => string[]
}

export interface HookDeps extends DispatchDeps {
  sealKey: Buffer
  fence: () => UntrustedFence
  limiter: RefusalLimiter
}

export interface HookDelivery {
  slug: string
  address: string
  headers: ForgeHeaders
  body: Buffer
}

export type HookAnswer
  = | { status: 202, outcome: string, runId: string | null, deliveryId: string }
    | { status: 400 | 401 | 404 | 409 | 413 | 429, code: string, message: string }

export interface RefusalLimiter {
  /** Counts a refusal for the address; false once it is over its allowance. */
  refuse: (address: string) => boolean
  blocked: (address: string) => boolean
}

/** At most `max` refusals per address in a sliding window; past that, everything is refused for the window. */
export function refusalLimiter(options: { max?: number, windowMs?: number, now?: () => number } = {}): RefusalLimiter {
  const max = options.max ?? 20
  const windowMs = options.windowMs ?? 60_000
  const now = options.now ?? Date.now
  const seen = new Map<string, number[]>()
  const recent = (address: string) => {
    const since = now() - windowMs
    const times = (seen.get(address) ?? []).filter(time => time > since)
    if (times.length === 0) seen.delete(address)
    else seen.set(address, times)
    return times
  }
  return {
    blocked: address => recent(address).length >= max,
    refuse(address) {
      const times = recent(address)
      times.push(now())
      seen.set(address, times)
      return times.length <= max
    },
  }
}

/** The webhook trigger's stored choices (its `event` column lists the forge events, its filters the branch). */
export function webhookChoices(trigger: { event: string | null, filters: Array<{ field: string, value?: string }> }): {
  events: Array<(typeof WEBHOOK_EVENTS)[number]>
  branch: string | null
} {
  const events = (trigger.event ?? '')
    .split(',')
    .filter((name): name is (typeof WEBHOOK_EVENTS)[number] => (WEBHOOK_EVENTS as readonly string[]).includes(name))
  return { events, branch: trigger.filters.find(filter => filter.field === 'branch')?.value ?? null }
}

export async function receiveWebhook(deps: HookDeps, delivery: HookDelivery): Promise<HookAnswer> {
  const { db } = deps
  if (deps.limiter.blocked(delivery.address)) return { status: 429, code: 'rate_limited', message: 'Too many refused deliveries from this address; try again in a minute.' }
  const refuse = async (
    status: 400 | 401 | 404 | 409 | 413,
    code: string,
    message: string,
    target: string,
    details: Record<string, unknown> = {},
  ): Promise<HookAnswer> => {
    if (deps.limiter.refuse(delivery.address)) {
      await recordAudit(db, {
        actor: `webhook:${delivery.address}`,
        action: 'agent_webhook_refused',
        target,
        details: {
          code,
          status,
          bytes: delivery.body.length,
          event: forgeEvent(delivery.headers),
          deliveryId: deliveryId(delivery.headers),
          ...details,
        },
      })
    }
    return { status, code, message }
  }

  const trigger = HookSlug.safeParse(delivery.slug).success ? await hookTrigger(db, delivery.slug) : null
  // The slug is half of what lets a caller in: the audit keeps only its start.
  const hookTarget = trigger ? `agent:${trigger.codename}` : `hook:${delivery.slug.slice(0, 6)}`
  if (!trigger) return await refuse(404, 'unknown_hook', 'No webhook at this address.', hookTarget)
  if (delivery.body.length > HOOK_BODY_LIMIT) return await refuse(413, 'too_large', `The delivery is larger than ${HOOK_BODY_LIMIT} bytes.`, hookTarget, { limit: HOOK_BODY_LIMIT })
  // No secret yet (never shown), or one sealed under an older hub key: nothing verifies.
  const secret = trigger.hookSecret === null ? null : openSecret(deps.sealKey, trigger.hookSecret)
  if (secret === null) return await refuse(401, 'bad_signature', 'The signature does not match this hook\'s secret.', hookTarget, { reason: trigger.hookSecret === null ? 'the hook has no secret yet: show it on the agent\'s page' : 'the hook\'s secret is sealed under another hub key: rotate it' })
  if (!signatureValid(secret, delivery.body, delivery.headers)) return await refuse(401, 'bad_signature', 'The signature does not match this hook\'s secret.', hookTarget)
  const id = deliveryId(delivery.headers)
  if (!id) return await refuse(400, 'missing_delivery', 'A delivery needs its id (X-GitHub-Delivery or X-Gitea-Delivery).', hookTarget)
  const event = forgeEvent(delivery.headers)
  if (!event) return await refuse(400, 'missing_event', 'A delivery needs its event (X-GitHub-Event or X-Gitea-Event).', hookTarget)
  let payload: unknown
  try {
    payload = JSON.parse(delivery.body.toString('utf8'))
  }
  catch {
    return await refuse(400, 'invalid_json', 'The delivery is not JSON (set the hook\'s content type to application/json).', hookTarget)
  }

  const summary = summarise(event, payload)
  const wanted = summary !== null && hookWants(webhookChoices(trigger), summary)
  const [claimed] = await db.insert(agentWebhookDeliveries)
    .values({ hookSlug: delivery.slug, deliveryId: id, forgeEvent: event, outcome: wanted ? 'received' : 'ignored' })
    .onConflictDoNothing({ target: [agentWebhookDeliveries.hookSlug, agentWebhookDeliveries.deliveryId] })
    .returning({ id: agentWebhookDeliveries.id })
  if (!claimed) return await refuse(409, 'replayed', `Delivery ${id} was already received.`, hookTarget)

  let outcome = 'ignored'
  let runId: string | null = null
  if (wanted) {
    const fired = await fireTrigger(deps, { id: trigger.id, codename: trigger.codename }, {
      kind: 'webhook', id: id, actor: `webhook:${summary.repository}`, agent: null,
      fields: { event: summary.event, repository: summary.repository, branch: summary.branch, ref: summary.ref },
    }, webhookRequest(deps.fence(), summary, id, delivery.body.toString('utf8')))
    outcome = fired.outcome === 'fired' ? 'started' : fired.outcome
    runId = fired.runId
    await db.update(agentWebhookDeliveries).set({ outcome, runId }).where(eq(agentWebhookDeliveries.id, claimed.id))
  }
  await recordAudit(db, { actor: `webhook:${delivery.address}`, action: 'agent_webhook_received', target: hookTarget, details: { deliveryId: id, event, outcome, runId, repository: summary?.repository ?? null, bytes: delivery.body.length } })
  return { status: 202, outcome, runId, deliveryId: id }
}

async function hookTrigger(db: Db, slug: string) {
  const [row] = await db
    .select({
      id: agentTriggers.id,
      codename: agentTriggers.codename,
      event: agentTriggers.event,
      filters: agentTriggers.filters,
      hookSecret: agentTriggers.hookSecret,
    })
    .from(agentTriggers)
    .innerJoin(agentCustom, eq(agentCustom.codename, agentTriggers.codename))
    .where(and(eq(agentTriggers.hookSlug, slug), eq(agentTriggers.kind, 'webhook'), eq(agentTriggers.enabled, true)))
  return row ?? null
}

/** The run's request: a trusted summary line, then the payload as untrusted data. */
export function webhookRequest(fence: UntrustedFence, summary: ForgeSummary, id: string, payload: string): string {
  const what = summary.event === 'push'
    ? `a push to ${fence.line(summary.repository, 300)} (${fence.line(summary.ref, 300)}), ${fence.line(summary.detail, 250)}`
    : `pull request ${fence.line(summary.detail, 100)} on ${fence.line(summary.repository, 300)} (${fence.line(summary.ref, 300)}): "${fence.line(summary.title ?? '', 300)}"`
  const cut = payload.length > PAYLOAD_IN_REQUEST ? `${payload.slice(0, PAYLOAD_IN_REQUEST)}\n[payload cut at ${PAYLOAD_IN_REQUEST} characters]` : payload
  return [
    `Triggered by a forge webhook (delivery ${id}): ${what}.`,
    ...fence.block('the webhook payload the forge sent, as JSON', [cut]),
  ].join('\n')
}
