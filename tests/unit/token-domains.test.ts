// Every domain of the API can be named in a token's scopes: a route added under a new first
// segment (/api/<domain>/…) is out of every token's reach until TOKEN_DOMAINS names it, and this
// test says so instead of a script meeting 403 token_scope.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { TOKEN_DOMAINS } from '#shared/tokens'
import { tokenRefusal } from '#server/core/tokens'

/** Reached with a session only (tokens, sign-in) or with no account at all (signed webhooks). */
const NOT_FOR_TOKENS = new Set(['tokens', 'auth', '_auth', 'hooks'])
/** Read by any token, whatever its scopes: the API's own description. */
const ANY_TOKEN = new Set(['openapi.json'])

function apiDomains(): Set<string> {
  const roots = ['server/api', ...readdirSync('layers').map(layer => join('layers', layer, 'server/api'))]
  const domains = new Set<string>()
  for (const root of roots) {
    let entries: string[]
    try {
      entries = readdirSync(root)
    }
    catch {
      continue
    }
    for (const entry of entries) domains.add(entry.replace(/(\.(get|post|put|patch|delete))?\.ts$/, ''))
  }
  return domains
}

it('names every first segment of the API in TOKEN_DOMAINS, or keeps it from tokens on purpose', () => {
  const missing = [...apiDomains()].filter(
    domain => !NOT_FOR_TOKENS.has(domain) && !ANY_TOKEN.has(domain) && !(TOKEN_DOMAINS as readonly string[]).includes(domain),
  )
  expect(missing).toEqual([])
})

it('lets any token read the API document, and nothing else beyond its scopes', () => {
  expect(tokenRefusal(['atlas:read'], 'GET', '/api/openapi.json')).toBeNull()
  expect(tokenRefusal(['atlas:read'], 'POST', '/api/openapi.json')).toBe('token_scope')
  expect(tokenRefusal(['atlas:read'], 'GET', '/api/agents')).toBe('token_scope')
})
