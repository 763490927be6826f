// The people page's input, shared by the /api/people routes (which validate it) and the page
// (which types its forms from it). Framework-free.
import { z } from 'zod'
import { MAX_PASSWORD_LENGTH } from './password'

export const PERSON_ROLES = ['founder', 'operator', 'viewer'] as const
export type PersonRole = typeof PERSON_ROLES[number]

const fields = {
  name: z.string().trim().min(1, 'a name is needed').max(200),
  role: z.enum(PERSON_ROLES),
}

/**
 * A new account: with the password the founder types (checked by the password policy), or
 * without one, as an invitation whose one-time link the founder hands over.
 */
export const PersonCreate = z.object({
  ...fields,
  name: fields.name.optional(),
  email: z.string().trim().toLowerCase().max(320).email('not an email address'),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH).optional(),
}).strict()

/** A change of name or role: only the fields sent change. */
export const PersonPatch = z.object(fields).partial().strict().refine(patch => Object.keys(patch).length > 0, 'nothing to change')

export const PersonActive = z.object({ active: z.boolean() }).strict()

/** What a one-time link's page sends: the token from the address, and the new password. */
export const LinkToken = z.string().regex(/^[\w-]{43}$/, 'not a link token')
export const LinkLookup = z.object({ token: LinkToken }).strict()
export const LinkPassword = z.object({ token: LinkToken, password: z.string().min(1).max(MAX_PASSWORD_LENGTH) }).strict()

export type PersonCreateInput = z.input<typeof PersonCreate>

/** What the routes answer for a person. */
export interface PersonView {
  id: string
  email: string
  name: string
  role: PersonRole
  active: boolean
  /** Created by invitation and no password set yet. */
  invited: boolean
  createdAt: string
  lastSignInAt: string | null
}

/** A one-time link, shown to the founder once. */
export interface OneTimeLinkView {
  kind: 'invitation' | 'reset'
  url: string
  expiresAt: string
}
