// Who may call what: the one table authorisation is decided from. The server's middleware
// (server/middleware/auth.ts) enforces it on every /api request and the pages read it through
// `useCan()` (layers/base/composables/can.ts) to show a write control only to a role allowed to
// use it, so a page and its route cannot disagree. Every route that writes has its entry here,
// keyed as Nitro names it (tests/unit/access.test.ts lists the route files against it); reads
// need a session (any role) unless listed. Framework-free: the browser bundles it.
import type { HubRole } from '#db/schema/hub'

/** Who may call a route: anyone (its own credential in the body or a signature), or a role and above. */
export type Access = 'public' | HubRole

export type Requirement = { public: true } | { public: false, minRole: HubRole }

export const ACCESS = {
  // Signing in, and a one-time link's page (issue 34, Deliver 3): the token is the credential; wrong ones are rate limited.
  'POST /api/auth/login': 'public',
  'POST /api/auth/link': 'public',
  'POST /api/auth/link/password': 'public',
  'GET /api/health': 'public',
  // A forge's webhook into a custom agent: its HMAC signature is the credential (issue 34, Deliver 6).
  'POST /api/hooks/:slug': 'public',

  // Writes any signed-in person may make about their own session. Signing out is nuxt-auth-utils' own route.
  'DELETE /api/_auth/session': 'viewer',
  'POST /api/auth/password': 'viewer',
  // Revoking one's own token (owner or founder, checked in the route): a person demoted to
  // viewer can still stop a token made while they were an operator.
  'DELETE /api/tokens/:id': 'viewer',
  'POST /api/tokens': 'operator',

  // A viewer asks their own agent (it runs with their permissions: it only reads).
  'POST /api/agents/runs': 'viewer',
  'POST /api/agents/runs/:id/rerun': 'viewer',
  'POST /api/agents/chat': 'viewer',
  // The MCP servers the agents' tools come from, and each tool's class (issue 35, Deliver 1).
  'POST /api/agents/mcp': 'founder',
  'POST /api/agents/mcp/:name/reconnect': 'founder',
  'PUT /api/agents/mcp/:name/tools': 'founder',
  // Files for a chat turn or a run of one's own (issue 35, Deliver 3).
  'POST /api/agents/files': 'viewer',
  'POST /api/agents/runs/:id/approvals/:approval': 'operator',
  'POST /api/agents/runs/:id/steps/:step/undo': 'operator',
  'POST /api/agents/standing-approvals': 'operator',
  'POST /api/agents/standing-approvals/revoke': 'operator',
  // Instructions are personal: a viewer writes their own too (issue 19, Deliver 7); owner-only in the routes.
  'POST /api/agents/instructions': 'viewer',
  'PATCH /api/agents/instructions/:id': 'viewer',
  'POST /api/agents/instructions/:id/versions': 'viewer',
  'POST /api/agents/instructions/:id/versions/:version/restore': 'viewer',
  'POST /api/agents/instructions/:id/proposals/:proposal': 'viewer',
  // Choosing one of the allowed models (or Auto) for one's own agent; which models a surface allows is the founder's (issue 19, Deliver 8).
  'PUT /api/agents/model-choice': 'viewer',
  'PUT /api/agents/models/:surface': 'founder',
  // A custom agent shared with a viewer (issue 21, Deliver 8): its share level is checked in the
  // routes (404 not shared, 403 too low), and a run a viewer starts only gets READ tools.
  'POST /api/agents/custom/:codename/runs': 'viewer',
  'PUT /api/agents/custom/:codename': 'viewer',
  'POST /api/agents/custom/:codename/kill': 'viewer',
  'POST /api/agents/custom/:codename/versions/:version/restore': 'viewer',
  'POST /api/agents/custom/:codename/shares': 'viewer',
  'DELETE /api/agents/custom/:codename/shares': 'viewer',
  'POST /api/agents/custom': 'operator',
  'POST /api/agents/custom/:codename/duplicate': 'operator',
  'POST /api/agents/custom/:codename/hooks/:slug/secret': 'operator',
  'POST /api/agents/custom-drafts/:id/save': 'operator',
  'POST /api/agents/custom-drafts/:id/discard': 'operator',
  // The studio policy: the tools any custom agent may ever use (issue 21, P3).
  'PUT /api/agents/studio-policy': 'founder',

  'POST /api/ai/generate': 'operator',
  'PUT /api/ai/prices': 'operator',
  'PUT /api/ai/routing/:feature': 'operator',
  'DELETE /api/ai/routing/:feature': 'operator',
  // Monthly budgets per person and per agent (issue 34, Deliver 7).
  'PUT /api/usage/budgets': 'founder',
  'PUT /api/usage/included': 'founder',

  'POST /api/atlas/messages': 'operator',
  'POST /api/atlas/messages/:id/approve': 'operator',
  'POST /api/atlas/messages/:id/reject': 'operator',
  'POST /api/atlas/messages/:id/reclassify': 'operator',
  'POST /api/atlas/messages/:id/lessons': 'operator',
  'POST /api/atlas/reply-drafts': 'operator',
  'PATCH /api/atlas/reply-drafts/:id': 'operator',
  'POST /api/atlas/reply-drafts/:id/sent': 'operator',
  'POST /api/atlas/reply-drafts/:id/discard': 'operator',
  // The spawn engine's kill switch: no new spawn starts, running ones finish (issue 36, Deliver 2).
  'POST /api/atlas/spawns/switch': 'founder',

  'POST /api/clients': 'operator',
  'PATCH /api/clients/:id': 'operator',
  // Deactivating (or reactivating) a client: its mail is no longer attributed to it (issue 34, Deliver 1).
  'PUT /api/clients/:id/active': 'founder',

  // Switching an automation on or off.
  'PATCH /api/automations/:name': 'founder',
  // Running an automate now, outside its schedule (issue 36, Deliver 5).
  'POST /api/automations/:name/run': 'founder',
  // Who failed or was refused at sign-in: names accounts and addresses.
  'GET /api/health/sign-ins': 'founder',

  'POST /api/learning/lessons': 'operator',
  'POST /api/learning/lessons/:id/unarchive': 'operator',
  'POST /api/learning/debriefs': 'operator',
  'POST /api/learning/suggestions/:id/apply': 'operator',
  'POST /api/learning/suggestions/:id/modify': 'operator',
  'POST /api/learning/suggestions/:id/reject': 'operator',
  // The skills registry: only the founder promotes (or rejects) a skill proposal (issue 18, Deliver 6).
  'POST /api/learning/skill-proposals/:id/promote': 'founder',
  'POST /api/learning/skill-proposals/:id/reject': 'founder',

  'PUT /api/memory/reflex': 'operator',
  'PUT /api/memory/briefs/:slug': 'operator',
  'POST /api/memory/notes/promote': 'operator',
  // The user model: who the founder is, how they work (issue 15, Deliver 5).
  'PUT /api/memory/user-model/:subject': 'founder',

  // People: accounts, roles, deactivation and password links, reads included (issue 34, Deliver 3).
  'GET /api/people': 'founder',
  'POST /api/people': 'founder',
  'PATCH /api/people/:id': 'founder',
  'PUT /api/people/:id/active': 'founder',
  'POST /api/people/:id/reset-link': 'founder',

  'POST /api/settings/connections/:name/test': 'operator',

  'POST /api/skills': 'operator',
  'POST /api/skills/import': 'operator',
  'PUT /api/skills/:id': 'operator',
  'DELETE /api/skills/:id': 'operator',
  'POST /api/skills/:id/versions/:version/restore': 'operator',
  // "Enable for me": a skill's activation is personal (issue 21, Deliver 2).
  'PUT /api/skills/:id/enablement': 'viewer',

  'POST /api/worksites/recall': 'operator',
  'POST /api/worksites/projects': 'operator',
  'PATCH /api/worksites/projects/:id': 'operator',
  'DELETE /api/worksites/projects/:id': 'operator',
  'POST /api/worksites/projects/:id/assign': 'operator',
  'POST /api/worksites/projects/:id/transition': 'operator',
  'POST /api/worksites/chantiers': 'operator',
  'PATCH /api/worksites/chantiers/:id': 'operator',
  'POST /api/worksites/chantiers/:id/assign': 'operator',
  'POST /api/worksites/chantiers/:id/confirm': 'operator',
  'POST /api/worksites/chantiers/:id/transition': 'operator',
  'POST /api/worksites/jobs': 'operator',
  'PATCH /api/worksites/jobs/:id': 'operator',
  'POST /api/worksites/jobs/:id/assign': 'operator',
  'POST /api/worksites/jobs/:id/transition': 'operator',
  'POST /api/worksites/tasks': 'operator',
  'PATCH /api/worksites/tasks/:id': 'operator',
  'POST /api/worksites/tasks/:id/assign': 'operator',
  'POST /api/worksites/tasks/:id/transition': 'operator',
  'POST /api/worksites/drafts/:id/promote': 'operator',
  'POST /api/worksites/drafts/:id/reject': 'operator',
  'POST /api/worksites/registries/:kind/:id/advice': 'operator',
  'POST /api/worksites/registries/:kind/:id/answer': 'operator',
  'POST /api/worksites/registries/:kind/:id/cancel': 'operator',
  'POST /api/worksites/registries/:kind/:id/close': 'operator',
  'POST /api/worksites/registries/:kind/:id/outcome': 'operator',
} as const satisfies Record<string, Access>

/** A route of the table, `METHOD /api/pattern`: what a page names when it asks `can(…)`. */
export type Route = keyof typeof ACCESS

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

interface Compiled { method: string, pattern: RegExp, params: number, access: Access }

/** Each entry as a matcher; a static segment wins over a parameter where two would match (as Nitro routes them). */
const COMPILED: Compiled[] = Object.entries(ACCESS).map(([key, access]) => {
  const [method, route] = key.split(' ') as [string, string]
  const segments = route.split('/').map(segment => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  return { method, pattern: new RegExp(`^${segments.join('/')}$`), params: route.split('/:').length - 1, access }
}).sort((a, b) => a.params - b.params)

function requirementOf(access: Access): Requirement {
  return access === 'public' ? { public: true } : { public: false, minRole: access }
}

/** The requirement of a request; a route the table does not name is read by anyone signed in and written by operators. */
export function requirementFor(method: string, path: string): Requirement {
  const verb = method.toUpperCase()
  const route = path.split('?')[0]!.replace(/\/+$/, '') || '/'
  const entry = COMPILED.find(c => c.method === verb && c.pattern.test(route))
  if (entry) return requirementOf(entry.access)
  return { public: false, minRole: READ_METHODS.has(verb) ? 'viewer' : 'operator' }
}

const RANK: Record<HubRole, number> = { viewer: 1, operator: 2, founder: 3 }

export function roleAllows(role: HubRole, minRole: HubRole): boolean {
  return RANK[role] >= RANK[minRole]
}

export function isHubRole(value: unknown): value is HubRole {
  return typeof value === 'string' && Object.hasOwn(RANK, value)
}

/** Whether a person of `role` (none: signed out) may call `route`. */
export function roleMayCall(role: HubRole | undefined, route: Route): boolean {
  const access: Access = ACCESS[route]
  if (access === 'public') return true
  return role !== undefined && roleAllows(role, access)
}
