// The typed run context (issue 19, Deliver 2): who acts, for which agent, under which regime,
// with which instructions, skills, sources, model request and budget. Checked once when a
// run starts; the run row keeps it as started.
import { z } from 'zod'
import { REGIMES, SURFACES, TRIGGERS } from './vocabulary'

export const DEFAULT_BUDGET = { iterations: 8, tokens: 200_000, costUsd: 2 } as const

const provider = z.enum(['auto', 'mistral', 'anthropic', 'openai', 'openai-compat', 'offline'])
const modelRef = z.object({ provider: z.enum(['mistral', 'anthropic', 'openai', 'openai-compat', 'offline']), model: z.string().min(1).max(200) })

export const RunContextInput = z.object({
  surface: z.enum(SURFACES),
  trigger: z.enum(TRIGGERS).default('interactive'),
  actingUser: z.object({
    id: z.string().uuid().nullable().default(null),
    email: z.string().min(3).max(320),
    role: z.enum(['viewer', 'operator', 'founder']),
  }),
  agent: z.object({ codename: z.string().min(1).max(100), ownerEmail: z.string().min(3).max(320) }),
  regime: z.enum(REGIMES),
  /** The tools an `allowlist` agent may call (ignored in the `user` regime). */
  allowlist: z.array(z.string().max(64)).max(128).default([]),
  /** The tenants (clients.id) an `allowlist` run may read (P3: none by default; ignored in the `user` regime). */
  tenants: z.array(z.string().uuid()).max(200).default([]),
  /** Delegation depth: 0 for a run started by a person or a trigger, parent's + 1 for a child (§12.7). */
  depth: z.number().int().min(0).max(5).default(0),
  instructions: z
    .array(z.object({ source: z.string().max(300), text: z.string().max(40_000) }))
    .max(10)
    .default([]),
  /** The run's skills: forced by the caller, then those the skill router added when the run was created. */
  forcedSkills: z
    .array(z.object({ name: z.string().max(200), text: z.string().max(40_000) }))
    .max(10)
    .default([]),
  /** The tools the run's skills allow (their intersection); null = no skill restricts. Only ever narrows. */
  skillTools: z.array(z.string().max(64)).max(128).nullable().default(null),
  /** What the run starts from (a page, a note, a work item): shown as working context. */
  sources: z
    .array(z.object({ kind: z.string().max(50), ref: z.string().max(500), title: z.string().max(300).optional() }))
    .max(50)
    .default([]),
  memory: z.string().max(40_000).default(''),
  modelRequest: z
    .object({ provider: provider.default('auto'), model: z.string().min(1).max(200).optional() })
    .default({ provider: 'auto' }),
  /** The person's stored model choice (used while allowed; withdrawn: Auto, said on the run). */
  modelPreference: modelRef.nullable().default(null),
  /** Decided by the engine when the run starts (models.ts): never taken from a caller as is. */
  modelResolution: z
    .object({
      first: modelRef.nullable(),
      candidates: z.array(modelRef).nullable(),
      mode: z.enum(['request', 'choice', 'auto']),
      note: z.string().nullable(),
    })
    .nullable()
    .default(null),
  budget: z
    .object({
      iterations: z.number().int().min(1).max(50).default(DEFAULT_BUDGET.iterations),
      tokens: z.number().int().min(100).max(5_000_000).default(DEFAULT_BUDGET.tokens),
      costUsd: z.number().min(0).max(100).default(DEFAULT_BUDGET.costUsd),
    })
    .default(DEFAULT_BUDGET),
  request: z.string().trim().min(1, 'the request is empty').max(20_000),
  parentRunId: z.string().uuid().nullable().default(null),
  rerunOf: z.string().uuid().nullable().default(null),
  /** The hub chat's conversation the run is a turn of (null outside the chat). */
  conversationId: z.string().uuid().nullable().default(null),
})

export type RunContext = z.output<typeof RunContextInput>
export type RunContextRequest = z.input<typeof RunContextInput>
