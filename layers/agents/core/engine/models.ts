// Models by surface (issue 19 Deliver 8, seed 003 I12): a founder lists, in order, the models
// the personal agent (surface hub_chat) and custom agents (custom_agent) may use; a person
// picks one of them or Auto in the chat panel. The list names models of the AI facade's own
// catalog (layers/ai/core/catalog.ts: its providers, its default models as suggestions).
//
// THE AUTO RULE: Auto takes the first enabled model of the founder's order whose provider is
// configured and not cooling down, offline models counted last; when none is available, the
// first of that order (the call then fails and says why). Failover before the first token
// stays inside the list, in the same order.
//
// A surface without any listed model is unrestricted: Auto is the facade's routing table, as
// before the list existed. Once listed, a model outside the enabled ones is refused when a
// request names it (400 model_not_allowed), and a person's stored choice that was withdrawn
// falls back to Auto at the next run — the run row says so in model_note.
import { and, asc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentModelChoices, agentsSurfaceModels, MODEL_SURFACES, type ModelSurface } from '#db/schema/agent-instructions'
import { hubAudit } from '#db/schema/hub'
import { ANTHROPIC_ALIASES, COMPLETION_DEFAULT_MODELS, COMPLETION_PROVIDERS, GENERATION_DEFAULT_MODELS } from '#layers/ai/core/catalog'
import { EngineError } from './errors'
import { PERSONAL_AGENT } from './vocabulary'

export { MODEL_SURFACES, type ModelSurface }

export const modelProvider = z.enum(COMPLETION_PROVIDERS as unknown as ['mistral', 'anthropic', 'openai', 'openai-compat', 'offline'])
const modelName = z.string().trim().min(1).max(200).regex(/^[\w.:/@-]+$/, 'model: letters, digits and . : / @ _ - only')

export const SurfaceParams = z.object({ surface: z.enum(MODEL_SURFACES) })
export const SurfaceModelsBody = z.object({
  models: z.array(z.object({ provider: modelProvider, model: modelName, enabled: z.boolean().default(true) }).strict()).max(30)
    .refine(list => new Set(list.map(entry => `${entry.provider}/${entry.model}`)).size === list.length, 'models: each provider/model once'),
}).strict()
export const ModelChoiceBody = z.object({ surface: z.enum(MODEL_SURFACES).default('hub_chat'), provider: modelProvider.nullable(), model: modelName.nullable() }).strict()
  .refine(value => (value.provider === null) === (value.model === null), 'provider and model: both, or both null for Auto')

export type ModelProvider = z.output<typeof modelProvider>
export interface ModelRef { provider: ModelProvider, model: string }
export type SurfaceModel = typeof agentsSurfaceModels.$inferSelect
export interface ProviderAvailability { provider: string, configured: boolean, coolingDown?: boolean }

/** The catalog's known models per completion provider (suggestions for the founder's list). */
export function knownModels(): Record<string, string[]> {
  const known: Record<string, Set<string>> = {}
  for (const provider of COMPLETION_PROVIDERS) known[provider] = new Set()
  for (const table of [COMPLETION_DEFAULT_MODELS, GENERATION_DEFAULT_MODELS]) {
    for (const [provider, model] of Object.entries(table)) if (model && known[provider]) known[provider].add(model)
  }
  for (const model of Object.values(ANTHROPIC_ALIASES)) known.anthropic!.add(model)
  return Object.fromEntries(Object.entries(known).map(([provider, models]) => [provider, [...models]]))
}

/** Which model list a run obeys: the personal agent's (hub_chat) or the custom agents'. */
export function modelSurfaceOf(agentCodename: string): ModelSurface {
  return agentCodename.startsWith(`${PERSONAL_AGENT}:`) ? 'hub_chat' : 'custom_agent'
}

export async function surfaceModels(db: Db, surface?: ModelSurface): Promise<SurfaceModel[]> {
  const query = db.select().from(agentsSurfaceModels)
  return await (surface ? query.where(eq(agentsSurfaceModels.surface, surface)) : query).orderBy(
    asc(agentsSurfaceModels.surface),
    asc(agentsSurfaceModels.position),
  )
}

/** Replaces a surface's list (order = position); audited. A model left out or disabled is withdrawn. */
export async function setSurfaceModels(db: Db, surface: ModelSurface, models: z.output<typeof SurfaceModelsBody>['models'], by: string): Promise<SurfaceModel[]> {
  await db.transaction(async (tx) => {
    await tx.delete(agentsSurfaceModels).where(eq(agentsSurfaceModels.surface, surface))
    if (models.length > 0)
      await tx.insert(agentsSurfaceModels).values(models.map((entry, position) => ({ surface, ...entry, position, updatedBy: by })))
    await tx.insert(hubAudit).values({ actor: by, action: 'agent_surface_models_set', target: surface, details: { models } })
  })
  return await surfaceModels(db, surface)
}

/** The Auto rule (see the top of this file): the candidates in the order they are tried. */
export function autoOrder(allowed: ModelRef[], providers: ProviderAvailability[]): ModelRef[] {
  const available = new Map(providers.map(status => [status.provider, status.configured && !status.coolingDown]))
  const ordered = [...allowed.filter(entry => entry.provider !== 'offline'), ...allowed.filter(entry => entry.provider === 'offline')]
  const first = ordered.find(entry => available.get(entry.provider))
  return first ? [first, ...ordered.filter(entry => entry !== first)] : ordered
}

export async function modelChoice(db: Db, email: string, surface: ModelSurface): Promise<ModelRef | null> {
  const [row] = await db
    .select()
    .from(agentModelChoices)
    .where(and(eq(agentModelChoices.email, email), eq(agentModelChoices.surface, surface)))
  return row?.provider && row.model ? { provider: row.provider as ModelProvider, model: row.model } : null
}

/** Keeps a person's choice (null: Auto); a model outside the enabled list is refused (400). */
export async function setModelChoice(db: Db, email: string, surface: ModelSurface, choice: ModelRef | null): Promise<ModelRef | null> {
  if (choice) {
    const enabled = (await surfaceModels(db, surface)).filter(row => row.enabled)
    if (!enabled.some(row => row.provider === choice.provider && row.model === choice.model)) {
      throw new EngineError('model_not_allowed', `${choice.provider}/${choice.model} is not among the models allowed for ${surface}`, 400)
    }
  }
  await db
    .insert(agentModelChoices)
    .values({ email, surface, provider: choice?.provider ?? null, model: choice?.model ?? null })
    .onConflictDoUpdate({
      target: [agentModelChoices.email, agentModelChoices.surface],
      set: { provider: choice?.provider ?? null, model: choice?.model ?? null, updatedAt: new Date() },
    })
  return choice
}

export interface ModelResolution {
  /** What the first model call asks for (null: unrestricted Auto, the facade's routing). */
  first: ModelRef | null
  /** The allowed models in the order they are tried (null: unrestricted). */
  candidates: ModelRef[] | null
  mode: 'request' | 'choice' | 'auto'
  /** Why the model differs from what was asked (a withdrawn choice). */
  note: string | null
}

/**
 * Decides a run's model before it starts: an explicit request must be allowed (400 otherwise);
 * a person's stored choice is used while allowed and falls back to Auto once withdrawn.
 */
export function resolveModel(
  allowedRows: SurfaceModel[],
  providers: ProviderAvailability[],
  asked: { request: { provider: string, model?: string }, preference: ModelRef | null },
): ModelResolution {
  const surface = allowedRows[0]?.surface ?? 'this surface'
  const explicit = asked.request.provider !== 'auto' ? asked.request : null
  if (allowedRows.length === 0) {
    if (explicit) return { first: null, candidates: null, mode: 'request', note: null }
    return asked.preference
      ? { first: asked.preference, candidates: null, mode: 'choice', note: null }
      : { first: null, candidates: null, mode: 'auto', note: null }
  }
  const allowed: ModelRef[] = allowedRows
    .filter(row => row.enabled)
    .map(row => ({ provider: row.provider as ModelProvider, model: row.model }))
  if (allowed.length === 0)
    throw new EngineError('no_model_allowed', `no model is allowed for ${surface}: a founder enables one on the AI page`, 400)
  const auto = autoOrder(allowed, providers)
  const pick = (ref: ModelRef) => [ref, ...auto.filter(entry => entry !== ref)]
  if (explicit) {
    const match = allowed.find(
      entry => entry.provider === explicit.provider && (explicit.model === undefined || entry.model === explicit.model),
    )
    if (!match)
      throw new EngineError(
        'model_not_allowed',
        `${explicit.provider}${explicit.model ? `/${explicit.model}` : ''} is not among the models allowed for ${surface}`,
        400,
        { allowed },
      )
    return { first: match, candidates: pick(match), mode: 'request', note: null }
  }
  if (asked.preference) {
    const match = allowed.find(entry => entry.provider === asked.preference!.provider && entry.model === asked.preference!.model)
    if (match) return { first: match, candidates: pick(match), mode: 'choice', note: null }
    return {
      first: auto[0]!,
      candidates: auto,
      mode: 'auto',
      note: `model ${asked.preference.provider}/${asked.preference.model} was withdrawn, Auto used`,
    }
  }
  return { first: auto[0]!, candidates: auto, mode: 'auto', note: null }
}
