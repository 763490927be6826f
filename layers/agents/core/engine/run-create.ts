// A run's creation: its context checked, the person's limits and the budgets, the model
// decided, the skills chosen, then its row written (the loop drives it afterwards).
import type { ChatMessage } from '#layers/ai/core/clients/types'
import { assertWithinBudgets } from './budget'
import { RunContextInput, type RunContext, type RunContextRequest } from './context'
import { clock, type EngineDeps } from './engine-deps'
import { EngineError } from './errors'
import { modelAsk } from './model-ask'
import { modelSurfaceOf, resolveModel, surfaceModels } from './models'
import { promptLayers } from './prompt'
import { namesInChoice, skillToolLimit, type SkillRouterPort } from './skills'
import { appendStep, insertRun, runner, type AgentRun } from './store'
import { assertWithinLimits } from './usage'
import { ENGINE_FEATURE } from './vocabulary'

export function parseRunContext(request: RunContextRequest): RunContext {
  const parsed = RunContextInput.safeParse(request)
  if (!parsed.success) throw new EngineError('invalid_context', parsed.error.issues.map(issue => `${issue.path.join('.')}: ${issue.message}`).join('; '))
  return parsed.data
}

/** Checks the context, the person's limits and the budgets, and writes the run's row, without driving it (the hub chat streams it). */
export async function createRun(deps: EngineDeps, request: RunContextRequest): Promise<AgentRun> {
  const parsed = parseRunContext(request)
  if (deps.limits) await assertWithinLimits(deps.db, parsed.actingUser.email, deps.limits, clock(deps))
  // The model is decided once, before the run exists: a model the surface does not allow is refused here.
  const allowed = await surfaceModels(deps.db, modelSurfaceOf(parsed.agent.codename))
  const resolution = resolveModel(allowed, deps.providers?.() ?? [], { request: parsed.modelRequest, preference: parsed.modelPreference })
  // The monthly budgets (person and agent): a reached one refuses the run unless its model is included.
  const firstModel = resolution.first ?? (parsed.modelRequest.provider === 'auto' ? null : parsed.modelRequest)
  await assertWithinBudgets(
    deps.db,
    { email: parsed.actingUser.email, agent: parsed.agent.codename, model: firstModel },
    clock(deps),
    deps.flushLedger,
  )
  let context: RunContext = { ...parsed, modelResolution: resolution }
  // The library routes only a person's own runs: an allowlist run (a custom agent) uses the
  // skills its allowlist gives it and nothing from its owner's library (P3, seed 003 §16.1).
  const selection = deps.skillRouter && context.regime === 'user' ? await selectSkills(deps, deps.skillRouter, context) : null
  if (selection) {
    const given = new Set(context.forcedSkills.map(s => s.name))
    const added = selection.skills.filter(s => !given.has(s.name))
    context = {
      ...context,
      forcedSkills: [...context.forcedSkills, ...added.map(s => ({ name: s.name, text: s.text }))].slice(0, 10),
      skillTools: skillToolLimit(selection.skills, context.skillTools),
    }
  }
  const run = await insertRun(deps.db, {
    ...runner(),
    modelNote: resolution.note,
    surface: context.surface,
    trigger: context.trigger,
    agent: context.agent.codename,
    actingUserId: context.actingUser.id,
    actingEmail: context.actingUser.email,
    actingRole: context.actingUser.role,
    ownerEmail: context.agent.ownerEmail,
    regime: context.regime,
    request: context.request,
    context: context as unknown as Record<string, unknown>,
    promptLayers: promptLayers(context),
    conversation: [{ role: 'user', content: context.request } satisfies ChatMessage],
    parentRunId: context.parentRunId,
    rerunOf: context.rerunOf,
    conversationId: context.conversationId,
  })
  if (selection) {
    const names = selection.skills.map(s => s.name)
    await appendStep(deps.db, run.id, { kind: 'skills', status: 'ok', skills: names, input: selection.decision, output: names.length > 0 ? `skills: ${names.join(', ')}` : 'no skill' })
    await deps.skillRouter!.recordUse(run.id, context.actingUser.email, selection.skills)
  }
  return run
}

/** Asks the skills library; between the thresholds the run's model chooses, unless the run is offline. */
async function selectSkills(deps: EngineDeps, router: SkillRouterPort, context: RunContext) {
  const first = context.modelResolution?.first
  const ask = modelAsk(context)
  // No surface list (Auto): online when a real completion provider is configured, as the run's first turn will be.
  const online = first
    ? first.provider !== 'offline'
    : ask.provider !== 'offline' && (deps.providers?.() ?? []).some(p => p.configured && p.provider !== 'offline' && p.provider !== 'voyage' && !p.coolingDown)
  const choose = online
    ? async (request: string, candidates: Array<{ name: string, description: string }>) => {
      const turn = await deps.chat({
        feature: ENGINE_FEATURE, ...ask, actor: context.actingUser.email, agent: context.agent.codename, tools: [],
        system: 'Pick the skills (at most two) that fit the request, among the candidates only. Answer with a JSON array of their names, [] for none.',
        messages: [{ role: 'user', content: `Request: ${request}\n\nCandidates:\n${candidates.map(c => `- ${c.name}: ${c.description}`).join('\n')}` }],
      })
      // Every name it said: the router applies only candidates and logs the others.
      return namesInChoice(turn.content)
    }
    : undefined
  return await router.select({
    email: context.actingUser.email,
    request: context.request,
    forced: context.forcedSkills.map(s => s.name),
    ...(choose ? { choose } : {}),
  })
}
