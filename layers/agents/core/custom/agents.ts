// Custom agents (seed 003 §9, I11): an agent of the registry a person makes — blank, from a
// template or from a draft of their personal agent — with its instructions document, model,
// allowlist, attached skills and triggers. Every save is a version (its whole configuration
// and triggers), any version can be restored (which is itself a new version), and a
// duplicate copies instructions and triggers, never access (allowlist) or approvals.
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentInstructions } from '#db/schema/agent-instructions'
import { agents } from '#db/schema/agents'
import { agentCustom, agentCustomVersions, agentTriggers, type AgentCustom } from '#db/schema/custom-agents'
import { skills } from '#db/schema/skills'
import { EngineError } from '../engine/errors'
import { HUB_ROLE_RANK, type PersonRole } from '../engine/vocabulary'
import { MAX_DEPTH_LIMIT } from './access'
import { agentAtLevel, sharedWith, type AccessLevel } from './sharing'
import { publicTrigger, triggerInputOf, triggerRows, type PublicTrigger } from './trigger-rows'
import { TriggerInput } from './triggers'

const codename = z.string().trim().min(2).max(64).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'codename: lower-case words joined by hyphens')

export const AllowlistBody = z.object({
  tools: z.array(z.string().min(1).max(64)).max(64).default([]),
  tenants: z.array(z.string().uuid()).max(200).default([]),
  documents: z.array(z.string().max(300)).max(200).default([]),
  skills: z.array(z.number().int().positive()).max(50).default([]),
}).strict()

export const ConfigBody = z.object({
  nickname: z.string().trim().min(1).max(64),
  description: z.string().max(2000).default(''),
  instructionId: z.string().uuid().nullable().default(null),
  skillIds: z.array(z.number().int().positive()).max(10).default([]),
  allowlist: AllowlistBody.default({ tools: [], tenants: [], documents: [], skills: [] }),
  model: z.object({ provider: z.enum(['auto', 'mistral', 'anthropic', 'openai', 'openai-compat', 'offline']), model: z.string().min(1).max(200).optional() }).strict().default({ provider: 'auto' }),
  canDelegate: z.boolean().default(false),
  maxDepth: z.number().int().min(1).max(MAX_DEPTH_LIMIT).default(3),
  runsPerHour: z.number().int().min(0).max(120).default(6),
  triggers: z.array(TriggerInput).max(20).default([]),
  note: z.string().max(500).default(''),
}).strict()
export type ConfigInput = z.output<typeof ConfigBody>

export const TEMPLATE_NAMES = ['blank', 'inbox-triage', 'weekly-digest'] as const
export const CreateCustomBody = ConfigBody.extend({ codename, template: z.enum(TEMPLATE_NAMES).optional() }).strict()

/** Starting points offered on the "new agent" page (the person edits everything before saving). */
export const TEMPLATES: Record<typeof TEMPLATE_NAMES[number], Partial<ConfigInput>> = {
  'blank': {},
  'inbox-triage': {
    description: 'Reads each new Atlas message of an intent and summarises what it asks.',
    allowlist: { tools: ['search_atlas_messages', 'read_atlas_message'], tenants: [], documents: [], skills: [] },
    triggers: [{ kind: 'event', event: 'atlas_message', filters: [{ field: 'intent', op: 'eq', value: 'question' }] }],
  },
  'weekly-digest': {
    description: 'Every Monday morning, recalls the week\'s lessons and drafts a digest note in the vault inbox.',
    allowlist: { tools: ['recall_memory', 'create_vault_inbox_note'], tenants: [], documents: [], skills: [] },
    triggers: [{ kind: 'schedule', cron: '0 8 * * 1' }],
  },
}

export interface CustomAgentView {
  agent: AgentCustom & { nickname: string }
  triggers: PublicTrigger[]
  versions: Array<{ version: number, savedBy: string, note: string, createdAt: Date }>
}

export type Editor = { email: string, role: PersonRole }

/**
 * The agent if the editor holds `needed` on it (owner or founder: full; else their share).
 * Not shared with them: 404, as if it did not exist; shared below `needed`: 403 (sharing.ts).
 */
export async function editableAgent(db: Db, editor: Editor, name: string, needed: AccessLevel = 'edit'): Promise<AgentCustom> {
  return (await agentAtLevel(db, editor, name, needed)).agent
}

/** The person's own agents and those shared with them (a founder sees every one), with their level. */
export async function listCustomAgents(
  db: Db,
  viewer: Editor,
): Promise<Array<AgentCustom & { nickname: string, level: AccessLevel, shared: boolean }>> {
  const query = db
    .select({ custom: agentCustom, nickname: agents.nickname })
    .from(agentCustom)
    .innerJoin(agents, eq(agents.codename, agentCustom.codename))
  const shares = await sharedWith(db, viewer.email)
  const rows
    = viewer.role === 'founder'
      ? await query
      : await query.where(
          or(eq(agentCustom.ownerEmail, viewer.email), shares.size > 0 ? inArray(agentCustom.codename, [...shares.keys()]) : sql`false`),
        )
  return rows.map((row) => {
    const own = row.custom.ownerEmail === viewer.email
    return {
      ...row.custom,
      nickname: row.nickname,
      level: own || viewer.role === 'founder' ? ('full' as const) : shares.get(row.custom.codename)!,
      shared: !own && shares.has(row.custom.codename),
    }
  })
}

export async function customAgentView(db: Db, viewer: Editor, name: string): Promise<CustomAgentView> {
  const agent = await editableAgent(db, viewer, name, 'use')
  const [[identity], triggers, versions] = await Promise.all([
    db.select({ nickname: agents.nickname }).from(agents).where(eq(agents.codename, name)),
    db.select().from(agentTriggers).where(eq(agentTriggers.codename, name)).orderBy(agentTriggers.id),
    db
      .select({
        version: agentCustomVersions.version,
        savedBy: agentCustomVersions.savedBy,
        note: agentCustomVersions.note,
        createdAt: agentCustomVersions.createdAt,
      })
      .from(agentCustomVersions)
      .where(eq(agentCustomVersions.codename, name))
      .orderBy(desc(agentCustomVersions.version)),
  ])
  return { agent: { ...agent, nickname: identity?.nickname ?? name }, triggers: triggers.map(publicTrigger), versions }
}

/** Refuses references the editor may not hand to an agent: someone else's document, unknown skills. */
async function checkReferences(db: Db, owner: string, config: ConfigInput): Promise<void> {
  if (config.instructionId) {
    const [doc] = await db
      .select({ owner: agentInstructions.ownerEmail })
      .from(agentInstructions)
      .where(eq(agentInstructions.id, config.instructionId))
    if (!doc || doc.owner !== owner) throw new EngineError('invalid_instructions', `instructionId: no instruction document ${config.instructionId} of ${owner}`, 400)
  }
  if (config.skillIds.length > 0) {
    const found = await db.select({ id: skills.id }).from(skills).where(inArray(skills.id, config.skillIds))
    const missing = config.skillIds.filter(id => !found.some(row => row.id === id))
    if (missing.length > 0) throw new EngineError('invalid_skills', `skillIds: no skill ${missing.join(', ')}`, 400)
  }
}

function storedConfig(config: ConfigInput): Record<string, unknown> {
  const { note: _note, ...rest } = config
  return rest
}

async function writeConfig(tx: Db, name: string, config: ConfigInput, editor: string, version: number): Promise<void> {
  const now = new Date()
  await tx.update(agents).set({ nickname: config.nickname, updatedAt: now }).where(eq(agents.codename, name))
  await tx
    .update(agentCustom)
    .set({
      description: config.description,
      instructionId: config.instructionId,
      skillIds: config.skillIds,
      allowlist: config.allowlist,
      model: config.model,
      canDelegate: config.canDelegate,
      maxDepth: config.maxDepth,
      runsPerHour: config.runsPerHour,
      version,
      updatedAt: now,
    })
    .where(eq(agentCustom.codename, name))
  const current = await tx
    .delete(agentTriggers)
    .where(eq(agentTriggers.codename, name))
    .returning({ hookSlug: agentTriggers.hookSlug, hookSecret: agentTriggers.hookSecret })
  const rows = triggerRows(name, config.triggers, current)
  if (rows.length > 0) await tx.insert(agentTriggers).values(rows)
  // The version records each webhook's slug as saved (never a secret): restoring it keeps the hook while it exists.
  const triggers = rows.map(row => triggerInputOf(row))
  await tx
    .insert(agentCustomVersions)
    .values({ codename: name, version, config: storedConfig({ ...config, triggers }), savedBy: editor, note: config.note })
}

/** A new custom agent: a registry row plus its configuration, version 1. Operators and founders only. */
export async function createCustomAgent(db: Db, editor: Editor, input: z.output<typeof CreateCustomBody>): Promise<CustomAgentView> {
  if (HUB_ROLE_RANK[editor.role] < HUB_ROLE_RANK.operator) throw new EngineError('forbidden', 'a viewer cannot create agents', 403)
  const { codename: name, template, ...rest } = input
  const config = ConfigBody.parse({ ...TEMPLATES[template ?? 'blank'], ...stripDefaults(rest) })
  await checkReferences(db, editor.email, config)
  await db.transaction(async (tx) => {
    const inserted = await tx.insert(agents).values({ codename: name, nickname: config.nickname, role: 'Custom agent', roleEn: 'Custom agent', groupName: 'execution', orbite: 3 })
      .onConflictDoNothing({ target: agents.codename }).returning({ id: agents.id })
    if (inserted.length === 0) throw new EngineError('codename_taken', `codename: an agent ${name} already exists`, 409)
    await tx.insert(agentCustom).values({ codename: name, ownerEmail: editor.email })
    await writeConfig(tx as unknown as Db, name, config, editor.email, 1)
  })
  return await customAgentView(db, editor, name)
}

// A template's values are kept unless the person gave their own (a zod default is not a choice).
function stripDefaults(rest: Record<string, unknown>): Record<string, unknown> {
  const empty = (value: unknown) => value === undefined || (Array.isArray(value) && value.length === 0) || value === ''
  return Object.fromEntries(Object.entries(rest).filter(([key, value]) => !(empty(value) || (key === 'allowlist' && Object.values(value as object).every(empty)))))
}

/** Saves the whole configuration as the next version. */
export async function saveCustomAgent(db: Db, editor: Editor, name: string, config: ConfigInput): Promise<CustomAgentView> {
  const { agent, level } = await agentAtLevel(db, editor, name, 'edit')
  // `edit` changes what the agent says and when it wakes, never what it may touch.
  if (level !== 'full' && changesAccess(agent, config)) throw new EngineError('share_level_too_low', `${name}: changing its access (allowlist, delegation) needs "full"`, 403, { level, needed: 'full' })
  // Instruction documents are personal: only the owner links another of theirs.
  if (editor.email !== agent.ownerEmail && config.instructionId && config.instructionId !== agent.instructionId) throw new EngineError('invalid_instructions', 'instructionId: only the owner links one of their instruction documents', 400)
  await checkReferences(db, agent.ownerEmail, config)
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ version: agentCustom.version }).from(agentCustom).where(eq(agentCustom.codename, name)).for('update')
    await writeConfig(tx as unknown as Db, name, config, editor.email, current!.version + 1)
  })
  return await customAgentView(db, editor, name)
}

function changesAccess(agent: AgentCustom, config: ConfigInput): boolean {
  const sorted = (list: readonly unknown[]) => JSON.stringify([...list].map(String).sort())
  const keys = ['tools', 'tenants', 'documents', 'skills'] as const
  return (
    keys.some(key => sorted(agent.allowlist[key] ?? []) !== sorted(config.allowlist[key]))
    || agent.canDelegate !== config.canDelegate
    || agent.maxDepth !== config.maxDepth
  )
}

/** Restores a version's configuration as a new version (nothing is lost, I11). */
export async function restoreCustomVersion(db: Db, editor: Editor, name: string, version: number): Promise<CustomAgentView> {
  await editableAgent(db, editor, name)
  const [row] = await db
    .select()
    .from(agentCustomVersions)
    .where(and(eq(agentCustomVersions.codename, name), eq(agentCustomVersions.version, version)))
  if (!row) throw new EngineError('not_found', `no version ${version} of ${name}`, 404)
  const config = ConfigBody.parse({ ...row.config, note: `restored version ${version}` })
  return await saveCustomAgent(db, editor, name, config)
}

/** Copies instructions and triggers (and the model) under a new codename; access and approvals start empty. */
export async function duplicateCustomAgent(db: Db, editor: Editor, name: string, copy: string, nickname: string): Promise<CustomAgentView> {
  const view = await customAgentView(db, editor, name)
  const source = view.agent
  const triggers = view.triggers.map(trigger => triggerInputOf(trigger, false))
  // The copy belongs to whoever duplicates: another person's instruction document is not copied by reference.
  const instructionId = source.ownerEmail === editor.email ? source.instructionId : null
  return await createCustomAgent(db, editor, CreateCustomBody.parse({
    codename: copy, nickname, description: source.description, instructionId, model: source.model, triggers, note: `duplicated from ${name}`,
  }))
}

/** The kill switch: stops new runs (running ones are not touched). */
export async function setKilled(db: Db, editor: Editor, name: string, killed: boolean): Promise<void> {
  await editableAgent(db, editor, name)
  await db.update(agentCustom).set({ killed, updatedAt: new Date() }).where(eq(agentCustom.codename, name))
}
