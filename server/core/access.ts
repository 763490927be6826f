// Who may call what: the one place authorisation is decided. Reads need a session (any
// role), writes need operator or founder, a few actions are founder-only, and only
// sign-in, one-time links, the health probe and the signed webhooks are public.
import { HUB_ROLES, type HubRole } from '#db/schema/hub'

export type Requirement = { public: true } | { public: false, minRole: HubRole }

const PUBLIC: Array<[string, string]> = [
  ['POST', '/api/auth/login'],
  ['GET', '/api/health'],
  // A one-time link's page (issue 34, Deliver 3): the token is the credential; wrong ones are rate limited.
  ['POST', '/api/auth/link'],
  ['POST', '/api/auth/link/password'],
]

/** A forge's webhook into a custom agent: its HMAC signature is the credential (issue 34, Deliver 6). */
const PUBLIC_HOOK = /^\/api\/hooks\/[^/]+$/

/** Writes any signed-in person may make about their own session. */
const OWN_SESSION: Array<[string, RegExp]> = [
  ['DELETE', /^\/api\/_auth\/session$/],
  ['POST', /^\/api\/auth\/password$/],
  // Revoking one's own token (owner or founder, checked in the route): a person demoted to
  // viewer can still stop a token made while they were an operator.
  ['DELETE', /^\/api\/tokens\/[^/]+$/],
]

/** Writes a viewer may make: asking their own agent (it runs with their permissions: it only reads). */
const VIEWER_WRITES: Array<[string, RegExp]> = [
  ['POST', /^\/api\/agents\/runs$/],
  ['POST', /^\/api\/agents\/runs\/[^/]+\/rerun$/],
  // A chat turn is a run of the person's own agent (regime `user`: a viewer's agent only reads).
  ['POST', /^\/api\/agents\/chat$/],
  ['POST', /^\/api\/agents\/files$/],
  // Instructions are personal: a viewer writes their own too (issue 19, Deliver 7); owner-only in the routes.
  ['POST', /^\/api\/agents\/instructions(\/[^/]+\/(versions|versions\/\d+\/restore|proposals\/[^/]+))?$/],
  ['PATCH', /^\/api\/agents\/instructions\/[^/]+$/],
  // Choosing one of the allowed models (or Auto) for one's own agent.
  ['PUT', /^\/api\/agents\/model-choice$/],
  // "Enable for me": a skill's activation is personal (issue 21, Deliver 2).
  ['PUT', /^\/api\/skills\/\d+\/enablement$/],
  // A custom agent shared with a viewer (issue 21, Deliver 8): its share level is checked in the
  // routes (404 not shared, 403 too low), and a run a viewer starts only gets READ tools.
  ['POST', /^\/api\/agents\/custom\/[^/]+\/runs$/],
  ['PUT', /^\/api\/agents\/custom\/[^/]+$/],
  ['POST', /^\/api\/agents\/custom\/[^/]+\/(kill|versions\/\d+\/restore|shares)$/],
  ['DELETE', /^\/api\/agents\/custom\/[^/]+\/shares$/],
]

const FOUNDER_ONLY: Array<[string, RegExp]> = [
  ['PATCH', /^\/api\/automations\/[^/]+$/],
  // The user model: who the founder is, how they work (issue 15, Deliver 5).
  ['PUT', /^\/api\/memory\/user-model\/[^/]+$/],
  // The skills registry: only the founder promotes (or rejects) a skill proposal (issue 18, Deliver 6).
  ['POST', /^\/api\/learning\/skill-proposals\/[^/]+\/(promote|reject)$/],
  // Which models the personal agent and custom agents may use (issue 19, Deliver 8).
  ['PUT', /^\/api\/agents\/models\/[^/]+$/],
  // The studio policy: the tools any custom agent may ever use (issue 21, P3).
  ['PUT', /^\/api\/agents\/studio-policy$/],
  // Deactivating (or reactivating) a client: its mail is no longer attributed to it (issue 34, Deliver 1).
  ['PUT', /^\/api\/clients\/[^/]+\/active$/],
  // Who failed or was refused at sign-in: names accounts and addresses.
  ['GET', /^\/api\/health\/sign-ins$/],
  // People: accounts, roles, deactivation and password links, reads included (issue 34, Deliver 3).
  ['GET', /^\/api\/people$/],
  ['POST', /^\/api\/people(\/[^/]+\/reset-link)?$/],
  ['PATCH', /^\/api\/people\/[^/]+$/],
  ['PUT', /^\/api\/people\/[^/]+\/active$/],
  // Monthly budgets per person and per agent (issue 34, Deliver 7).
  ['PUT', /^\/api\/usage\/(budgets|included)$/],
]

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function requirementFor(method: string, path: string): Requirement {
  const verb = method.toUpperCase()
  const route = path.split('?')[0]!.replace(/\/+$/, '') || '/'
  if (PUBLIC.some(([m, p]) => m === verb && p === route) || (verb === 'POST' && PUBLIC_HOOK.test(route))) return { public: true }
  if (FOUNDER_ONLY.some(([m, p]) => m === verb && p.test(route))) return { public: false, minRole: 'founder' }
  if (READ_METHODS.has(verb) || [...OWN_SESSION, ...VIEWER_WRITES].some(([m, p]) => m === verb && p.test(route))) return { public: false, minRole: 'viewer' }
  return { public: false, minRole: 'operator' }
}

const RANK: Record<HubRole, number> = { viewer: 1, operator: 2, founder: 3 }

export function roleAllows(role: HubRole, minRole: HubRole): boolean {
  return RANK[role] >= RANK[minRole]
}

export function isHubRole(value: unknown): value is HubRole {
  return typeof value === 'string' && (HUB_ROLES as readonly string[]).includes(value)
}
