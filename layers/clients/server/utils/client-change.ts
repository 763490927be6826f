import type { ClientChange } from '#layers/clients/core/clients'
import type { ClientView } from '#layers/clients/core/schemas'

/** A refused client change as its 4xx: 404 not_found, 409 domain_taken or slug_taken. */
export function clientOrThrow(change: ClientChange): ClientView {
  if (change.ok) return change.client
  if (change.code === 'not_found') throw createError({ statusCode: 404, statusMessage: 'No such client.', data: { code: 'not_found' } })
  const message = change.code === 'domain_taken'
    ? `The domain ${change.domain} already belongs to ${change.owner}: remove it there first.`
    : `The slug ${change.slug} is taken: choose another.`
  throw createError({ statusCode: 409, statusMessage: message, data: { code: change.code, message, ...(change.code === 'domain_taken' ? { domain: change.domain } : { slug: change.slug }) } })
}
