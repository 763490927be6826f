import type { H3Event } from 'h3'
import type { PeopleChange } from '#server/core/people'
import type { LinkRefusal } from '#server/core/one-time-links'
import { linkPath } from '#server/core/one-time-links'
import { readPublicUrl } from '#layers/base/core/session-cookie'
import type { OneTimeLinkView, PersonView } from '#shared/people'

const STATUS = { not_found: 404, email_taken: 409, last_founder: 409, weak_password: 400 } as const

/** A refused people change as its 4xx: 404 not_found, 409 email_taken or last_founder, 400 weak_password. */
export function personOrThrow(change: PeopleChange): Extract<PeopleChange, { ok: true }> {
  if (change.ok) return change
  throw createError({
    statusCode: STATUS[change.code],
    statusMessage: change.message,
    data: { code: change.code, message: change.message },
  })
}

/** A one-time link refused as its 4xx (400 unknown or weak, 410 used, expired or deactivated, 429 guessing). */
export function throwLinkRefusal(event: H3Event, refusal: LinkRefusal): never {
  if (refusal.code === 'too_many_attempts') setResponseHeader(event, 'retry-after', refusal.retryAfterSeconds)
  throw createError({
    statusCode: refusal.status, statusMessage: refusal.message,
    data: { code: refusal.code, message: refusal.message, ...(refusal.code === 'too_many_attempts' ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}) },
  })
}

/** The link as the founder copies it: at HUB_PUBLIC_URL when set, else at the address the founder uses. */
export function linkView(event: H3Event, link: NonNullable<Extract<PeopleChange, { ok: true }>['link']>): OneTimeLinkView {
  const origin = readPublicUrl(process.env.HUB_PUBLIC_URL) ?? getRequestURL(event).origin
  return { kind: link.kind, url: `${origin}${linkPath(link)}`, expiresAt: link.expiresAt.toISOString() }
}

/** The answer of a change: the person, and the link when there is one (shown once). */
export function personAnswer(event: H3Event, change: PeopleChange): { person: PersonView, link?: OneTimeLinkView } {
  const done = personOrThrow(change)
  return { person: done.person, ...(done.link ? { link: linkView(event, done.link) } : {}) }
}
