// What the runs routes read and answer: the bodies they accept, the personal agent's run
// context for the signed-in person (regime `user`), and the run page's view of a run.
import { desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentRuns } from '#db/schema/agent-runs'
import type { RunContextRequest } from './context'
import { EngineError } from './errors'
import { getRun, runApprovals, runSteps, type AgentApproval, type AgentRun, type AgentRunStep } from './store'
import type { PromptLayer } from './prompt'
import type { ToolSource, ToolWrite } from './tools'
import { runFiles, type RunFile } from '../files/store'
import { PERSONAL_AGENT, type PersonRole } from './vocabulary'

export const StartRunBody = z
  .object({
    request: z.string().trim().min(1, 'request: say what the agent should do').max(20_000),
    surface: z.enum(['hub_chat', 'api']).default('api'),
    sources: z
      .array(z.object({ kind: z.string().min(1).max(50), ref: z.string().min(1).max(500), title: z.string().max(300).optional() }))
      .max(20)
      .default([]),
    model: z
      .object({
        provider: z.enum(['auto', 'mistral', 'anthropic', 'openai', 'openai-compat', 'offline']).default('auto'),
        model: z.string().min(1).max(200).optional(),
      })
      .optional(),
    budget: z
      .object({
        iterations: z.number().int().min(1).max(50).optional(),
        tokens: z.number().int().min(100).max(5_000_000).optional(),
        costUsd: z.number().min(0).max(100).optional(),
      })
      .optional(),
  })
  .strict()

export const DecisionBody = z.object({ decision: z.enum(['approve', 'deny']), note: z.string().max(2000).optional() }).strict()
export const StandingBody = z.object({ tool: z.string().min(1).max(64), agent: z.string().min(1).max(400).optional() }).strict()
export const RunIdParams = z.object({ id: z.string().uuid() })
export const StepParams = z.object({ id: z.string().uuid(), step: z.coerce.number().int().positive() })
export const ApprovalParams = z.object({ id: z.string().uuid(), approval: z.string().uuid() })

export interface HubPerson { id: string, email: string, role: PersonRole }

/** A person's own agent: one per person, its codename carries the owner. */
export function personalAgentOf(email: string): string {
  return `${PERSONAL_AGENT}:${email}`
}

/** The personal agent's context; `own` carries the person's active instructions and model choice (read by the caller). */
export function personalRunContext(person: HubPerson, body: z.output<typeof StartRunBody>, own: Pick<RunContextRequest, 'instructions' | 'modelPreference'> = {}): RunContextRequest {
  return {
    ...own,
    surface: body.surface,
    trigger: 'interactive',
    actingUser: { id: person.id, email: person.email, role: person.role },
    agent: { codename: personalAgentOf(person.email), ownerEmail: person.email },
    regime: 'user',
    request: body.request,
    sources: body.sources,
    modelRequest: body.model ?? { provider: 'auto' },
    ...(body.budget ? { budget: body.budget } : {}),
  }
}

/** A step with the shapes its JSON columns were written with (the loop stores ToolSource[] and a ToolWrite). */
export type RunStepView = Omit<AgentRunStep, 'sources' | 'write'> & { sources: ToolSource[], write: ToolWrite | null }

export interface RunView {
  /** The run, its prompt layers as the loop stored them (promptLayers(context)). */
  run: Omit<AgentRun, 'conversation' | 'promptLayers'> & { promptLayers: PromptLayer[] }
  steps: RunStepView[]
  approvals: AgentApproval[]
  /** Every source the run read, once each, in reading order. */
  sources: ToolSource[]
  skills: string[]
  /** The files given to the run and those it produced (no bytes: GET /api/agents/files/:id downloads one). */
  files: RunFile[]
}

/** Who sees a run (its page, its files): the person it acted for, its owner, a founder, or whom `sharedAgent` admits. */
export async function seesRun(run: Pick<AgentRun, 'actingEmail' | 'ownerEmail' | 'agent'>, viewer: { email: string, role: PersonRole }, sharedAgent?: (agent: string) => Promise<boolean>): Promise<boolean> {
  if (run.actingEmail === viewer.email || run.ownerEmail === viewer.email || viewer.role === 'founder') return true
  return (await sharedAgent?.(run.agent)) ?? false
}

/**
 * The run as its page shows it, to the person it acted for, its owner or a founder; and to
 * whoever `sharedAgent` says may see the agent's activity (a custom agent shared with them).
 */
export async function runView(
  db: Db,
  id: string,
  viewer: { email: string, role: PersonRole },
  sharedAgent?: (agent: string) => Promise<boolean>,
): Promise<RunView> {
  const run = await getRun(db, id)
  if (!run) throw new EngineError('not_found', `no run ${id}`, 404)
  if (!(await seesRun(run, viewer, sharedAgent))) throw new EngineError('not_found', `no run ${id}`, 404)
  const [rows, approvals, files] = await Promise.all([runSteps(db, id), runApprovals(db, id), runFiles(db, id)])
  const steps = rows as RunStepView[]
  const seen = new Set<string>()
  const sources: ToolSource[] = []
  for (const step of steps) {
    for (const source of step.sources) {
      const key = `${source.kind}:${source.ref}`
      if (!seen.has(key)) {
        seen.add(key)
        sources.push(source)
      }
    }
  }
  const { conversation: _conversation, ...rest } = run
  return { run: rest as RunView['run'], steps, approvals, sources, skills: [...new Set(steps.flatMap(step => step.skills))], files }
}

export async function listRuns(db: Db, viewer: { email: string, role: PersonRole }, limit = 50): Promise<Array<Omit<AgentRun, 'conversation' | 'context' | 'promptLayers'>>> {
  const columns = {
    id: agentRuns.id,
    surface: agentRuns.surface,
    trigger: agentRuns.trigger,
    agent: agentRuns.agent,
    actingUserId: agentRuns.actingUserId,
    actingEmail: agentRuns.actingEmail,
    actingRole: agentRuns.actingRole,
    ownerEmail: agentRuns.ownerEmail,
    regime: agentRuns.regime,
    request: agentRuns.request,
    status: agentRuns.status,
    answer: agentRuns.answer,
    error: agentRuns.error,
    provider: agentRuns.provider,
    model: agentRuns.model,
    modelNote: agentRuns.modelNote,
    iterations: agentRuns.iterations,
    tokensIn: agentRuns.tokensIn,
    tokensOut: agentRuns.tokensOut,
    costUsd: agentRuns.costUsd,
    parentRunId: agentRuns.parentRunId,
    rerunOf: agentRuns.rerunOf,
    conversationId: agentRuns.conversationId,
    runnerHost: agentRuns.runnerHost,
    runnerPid: agentRuns.runnerPid,
    createdAt: agentRuns.createdAt,
    updatedAt: agentRuns.updatedAt,
    endedAt: agentRuns.endedAt,
  }
  const query = db.select(columns).from(agentRuns)
  const rows = viewer.role === 'founder' ? query : query.where(eq(agentRuns.actingEmail, viewer.email))
  return await rows.orderBy(desc(agentRuns.createdAt)).limit(limit)
}
