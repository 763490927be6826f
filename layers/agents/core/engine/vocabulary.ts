// The engine's words (seed 003 §3.8, §16): tool classes, run statuses, regimes, triggers.
// db/schema/agent-runs.ts repeats them in its checks.
export const TOOL_CLASSES = ['READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE'] as const
export type ToolClass = typeof TOOL_CLASSES[number]

export const RUN_STATUSES = ['running', 'awaiting_approval', 'succeeded', 'failed', 'stopped'] as const
export type RunStatus = typeof RUN_STATUSES[number]

export const REGIMES = ['user', 'allowlist'] as const
export type Regime = typeof REGIMES[number]

export const TRIGGERS = ['interactive', 'autonomous', 'rerun'] as const
export type Trigger = typeof TRIGGERS[number]

export const SURFACES = ['hub_chat', 'api', 'automate'] as const
export type Surface = typeof SURFACES[number]

export const HUB_ROLE_RANK = { viewer: 1, operator: 2, founder: 3 } as const
export type PersonRole = keyof typeof HUB_ROLE_RANK

/** An approval not decided within 72 hours can no longer be used (seed §16.3). */
export const APPROVAL_TTL_MS = 72 * 3600_000

/** What a step keeps of a tool's output, and what the model is shown of it. */
export const STORED_OUTPUT_CHARS = 4000
export const MODEL_OUTPUT_CHARS = 8000

/** The ledger label of the engine's model calls. */
export const ENGINE_FEATURE = 'agent_run'

/** The personal agent's codename (one per person: the person is the owner). */
export const PERSONAL_AGENT = 'personal'
