// Personal access tokens: the scopes a token may carry and the create form's input, shared by
// the routes (which validate it), the auth middleware (which reads scopes) and the account page.
import { z } from 'zod'

/** The first segment after /api/ of every domain's routes: a scope names one of them. */
export const TOKEN_DOMAINS = [
  'activity', 'agents', 'ai', 'alerts', 'atlas', 'automations', 'clients', 'health', 'learning',
  'memory', 'notifications', 'people', 'search', 'settings', 'skills', 'usage', 'workers', 'worksites',
] as const
export type TokenDomain = typeof TOKEN_DOMAINS[number]

/** read: GET and HEAD only; write: every method (it includes read). */
export const TOKEN_ACCESS = ['read', 'write'] as const
export type TokenAccess = typeof TOKEN_ACCESS[number]

export type TokenScope = `${TokenDomain}:${TokenAccess}`

const SCOPE = new RegExp(`^(${TOKEN_DOMAINS.join('|')}):(${TOKEN_ACCESS.join('|')})$`)

export const TokenScopeInput = z.string().regex(SCOPE, `a domain and an access, as atlas:read or agents:write (domains: ${TOKEN_DOMAINS.join(', ')})`)
  .transform(value => value as TokenScope)

export const DEFAULT_TOKEN_DAYS = 90
export const MAX_TOKEN_DAYS = 366

export const TokenCreate = z.object({
  name: z.string().trim().min(1, 'a name is needed').max(100),
  scopes: z.array(TokenScopeInput).min(1, 'at least one scope').max(TOKEN_DOMAINS.length * 2)
    .transform(scopes => [...new Set(scopes)]),
  expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS).default(DEFAULT_TOKEN_DAYS),
}).strict()

export type TokenCreateInput = z.input<typeof TokenCreate>

export const TokenListQuery = z.object({
  /** The founder's view of every person's tokens. */
  all: z.enum(['true', 'false']).transform(value => value === 'true').optional(),
}).strict()

/** What the routes answer for a token: never its secret nor its hash. */
export interface TokenView {
  id: string
  name: string
  /** The secret's first characters, to recognise it. */
  prefix: string
  scopes: TokenScope[]
  state: 'active' | 'expired' | 'revoked'
  expiresAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  createdAt: string
  owner: { id: string, email: string, name: string }
}

/** A new token's answer: the secret, shown this once. */
export interface TokenCreated { token: TokenView, secret: string }
