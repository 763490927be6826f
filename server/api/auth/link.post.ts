// Public (the token is the credential): whose one-time link this is, for its page. Nothing is
// consumed; an unknown token counts against the address (server/core/one-time-links.ts).
import { lookupLink } from '#server/core/one-time-links'
import { LinkLookup } from '#shared/people'

export default defineEventHandler(async (event) => {
  const { token } = validInput(LinkLookup, await readBody(event))
  const found = await lookupLink(await useDb(), token, getRequestIP(event) ?? 'unknown')
  if (!found.ok) throwLinkRefusal(event, found)
  return { kind: found.kind, email: found.email, name: found.name }
})
