// What a forge (GitHub, Gitea, Forgejo) sends to a webhook: the signature over the raw body
// (GitHub `X-Hub-Signature-256: sha256=<hex>`, Gitea `X-Gitea-Signature: <hex>`, Forgejo
// `X-Forgejo-Signature: <hex>`), the delivery id, the event name, and the payload, of which
// only a short summary is trusted (parsed with zod from the forge's own shape); the rest
// reaches the agent as untrusted data.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { WEBHOOK_EVENTS, type WebhookEvent } from './triggers'

export type ForgeHeaders = Record<string, string | string[] | undefined>

function header(headers: ForgeHeaders, name: string): string | null {
  const value = headers[name]
  const first = Array.isArray(value) ? value[0] : value
  return first === undefined || first === '' ? null : first
}

/** The hex signatures the request claims, by convention (a request may carry several). */
export function claimedSignatures(headers: ForgeHeaders): string[] {
  const github = header(headers, 'x-hub-signature-256')
  const claims = [
    github?.startsWith('sha256=') ? github.slice('sha256='.length) : null,
    header(headers, 'x-gitea-signature'),
    header(headers, 'x-forgejo-signature'),
  ]
  return claims.filter((claim): claim is string => claim !== null)
}

/** Whether one claimed signature is the HMAC-SHA256 of the raw body under the secret (constant time). */
export function signatureValid(secret: string, body: Buffer, headers: ForgeHeaders): boolean {
  const expected = createHmac('sha256', secret).update(body).digest()
  return claimedSignatures(headers).some((claim) => {
    if (!/^[0-9a-fA-F]{64}$/.test(claim)) return false
    return timingSafeEqual(Buffer.from(claim, 'hex'), expected)
  })
}

export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** The forge's id of this delivery (a retry of the same delivery keeps it: a replay). */
export function deliveryId(headers: ForgeHeaders): string | null {
  const id = header(headers, 'x-github-delivery') ?? header(headers, 'x-gitea-delivery') ?? header(headers, 'x-forgejo-delivery')
  return id && /^[\w.:-]{1,100}$/.test(id) ? id : null
}

export function forgeEvent(headers: ForgeHeaders): string | null {
  const event = header(headers, 'x-github-event') ?? header(headers, 'x-gitea-event') ?? header(headers, 'x-forgejo-event')
  return event && /^[a-z_]{1,50}$/.test(event) ? event : null
}

const Repository = z.object({ full_name: z.string().max(300) })
const PushPayload = z.object({
  ref: z.string().max(300),
  repository: Repository,
  pusher: z
    .object({ name: z.string().max(200).optional(), login: z.string().max(200).optional(), username: z.string().max(200).optional() })
    .optional(),
  head_commit: z
    .object({ id: z.string().max(64) })
    .nullable()
    .optional(),
  after: z.string().max(64).optional(),
})
const PullRequestPayload = z.object({
  action: z.string().max(50),
  repository: Repository,
  pull_request: z.object({
    number: z.number().int(),
    title: z.string().max(1000),
    base: z.object({ ref: z.string().max(300) }),
    head: z.object({ ref: z.string().max(300) }),
  }),
})

/** The trusted summary of a delivery: what the trigger filters on and what the run is told first. */
export interface ForgeSummary {
  event: WebhookEvent
  repository: string
  /** push: the branch pushed (null for a tag); pull_request: the branch it merges into. */
  branch: string | null
  ref: string
  /** push: who pushed; pull_request: the action (opened, synchronize…). */
  detail: string
  title: string | null
}

/** The summary, or null when the event is not one a trigger listens to (ping, issues…) or the payload is not its shape. */
export function summarise(event: string, payload: unknown): ForgeSummary | null {
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) return null
  if (event === 'push') {
    const push = PushPayload.safeParse(payload)
    if (!push.success) return null
    const branch = push.data.ref.startsWith('refs/heads/') ? push.data.ref.slice('refs/heads/'.length) : null
    const pusher = push.data.pusher?.name ?? push.data.pusher?.login ?? push.data.pusher?.username ?? 'someone'
    return { event: 'push', repository: push.data.repository.full_name, branch, ref: push.data.ref, detail: `pushed by ${pusher}`, title: null }
  }
  const pull = PullRequestPayload.safeParse(payload)
  if (!pull.success) return null
  const pr = pull.data.pull_request
  return { event: 'pull_request', repository: pull.data.repository.full_name, branch: pr.base.ref, ref: `${pr.head.ref} → ${pr.base.ref}`, detail: `#${pr.number} ${pull.data.action}`, title: pr.title }
}

/** Whether a webhook trigger wants this delivery: one of its events, and its branch if it names one. */
export function hookWants(trigger: { events: readonly string[], branch: string | null }, summary: ForgeSummary): boolean {
  return trigger.events.includes(summary.event) && (trigger.branch === null || trigger.branch === summary.branch)
}
