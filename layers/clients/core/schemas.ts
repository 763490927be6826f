// The client form's input, shared by the routes (which validate it) and the page (which types
// its form from it). Framework-free.
import { z } from 'zod'
import { PROVIDERS } from '#layers/ai/core/catalog'
import { DEPLOY_NAME } from './deploy-commands'
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'

const LABEL = '(?!-)[a-z0-9-]{1,63}(?<!-)'
const DOMAIN = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`)

export const ClientDomain = z.string().trim().toLowerCase().regex(DOMAIN, 'not a domain name (client.example)')

export const ClientContactInput = z.object({
  name: z.string().trim().max(200).optional(),
  email: z.string().trim().toLowerCase().max(320).email('not an email address'),
  role: z.string().trim().max(100).optional(),
})

/** A git address or an absolute path on this machine; never something git would read as an option. */
const Repository = z.string().trim().max(2000).regex(/^(?:https?:\/\/|ssh:\/\/|git@|file:\/\/|\/)\S+$/, 'a git address (https://…, ssh://…, git@host:path) or an absolute path')

/**
 * A branch name git accepts (git check-ref-format --branch, in short): no leading dash or dot,
 * no "..", "//", "@{", space or control character, no trailing "/", "." or ".lock".
 */
export const ClientBranch = z.string().trim().min(1).max(200)
  .regex(/^(?![-./])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock(?:\/|$)))[\w./@+-]+(?<![./])$/, 'a git branch name (main, release/2026-12…)')

/** A deploy command's name among those the environment defines (SPAWN_DEPLOY_COMMANDS). */
export const ClientDeploy = z.string().trim().regex(DEPLOY_NAME, 'a deploy name (lower-case letters, digits, _ and -)')

const fields = {
  name: z.string().trim().min(1, 'a name is needed').max(200),
  domains: z.array(ClientDomain).max(50),
  contacts: z.array(ClientContactInput).max(100),
  repository: Repository.nullable(),
  /** The branch the spawn checks out and the agent commits on; null: the repository's default. */
  branch: ClientBranch.nullable(),
  /** The deploy command's name; null: the studio's default (DEPLOY_COMMAND). */
  deploy: ClientDeploy.nullable(),
  preprodUrl: z.string().trim().max(2000).url('not an address').regex(/^https?:\/\//, 'an http(s) address').nullable(),
  ai: z.object({ provider: z.enum(PROVIDERS), model: z.string().trim().min(1).max(200).optional() }).nullable(),
}

export const ClientCreate = z.object({
  ...fields,
  slug: z.string().trim().toLowerCase().regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'lower-case letters, digits and dashes').optional(),
  domains: fields.domains.default([]),
  contacts: fields.contacts.default([]),
  repository: fields.repository.default(null),
  branch: fields.branch.default(null),
  deploy: fields.deploy.default(null),
  preprodUrl: fields.preprodUrl.default(null),
  ai: fields.ai.default(null),
}).strict()

/** A change: only the fields sent change. */
export const ClientPatch = z.object(fields).partial().strict().refine(patch => Object.keys(patch).length > 0, 'nothing to change')

/** A client's route parameter. */
export const ClientParams = z.object({ id: z.uuid() })

/** Deactivating or reactivating a client (founder only). */
export const ClientActiveBody = z.object({ active: z.boolean() }).strict()

export type ClientCreateInput = z.input<typeof ClientCreate>
export type ClientPatchInput = z.input<typeof ClientPatch>

/** What the form offers for the deploy: the environment's names, and whether a default exists. */
export interface DeployChoices {
  names: string[]
  /** DEPLOY_COMMAND is set: a client without a deploy of its own is deployed with it. */
  hasDefault: boolean
}

/** The form's name for "no deploy of its own: DEPLOY_COMMAND" (not a deploy name, never sent to the routes). */
export const CLIENT_DEFAULT_DEPLOY = ':default'

/** The form's name for "no provider of its own: the studio's routing" (never sent to the routes). */
export const CLIENT_STUDIO_ROUTING = 'studio-routing'

/** What the routes answer for a client. */
export interface ClientView {
  id: string
  slug: string
  name: string
  active: boolean
  domains: string[]
  contacts: Array<{ name?: string, email: string, role?: string }>
  repository: string | null
  branch: string | null
  deploy: string | null
  preprodUrl: string | null
  ai: { provider: string, model?: string } | null
  hasMissionBrief: boolean
  createdAt: string
  updatedAt: string
}

/** The clients routes' schemas, for the API document (GET /api/openapi.json). */
export const apiSchemas: ApiSchemaMap = {
  'GET /api/clients': { summary: 'List the studio\'s clients' },
  'POST /api/clients': { summary: 'Create a client', body: ClientCreate, status: 201 },
  'PATCH /api/clients/{id}': { summary: 'Change a client', params: ClientParams, body: ClientPatch },
  'PUT /api/clients/{id}/active': { summary: 'Deactivate or reactivate a client', params: ClientParams, body: ClientActiveBody },
}
