// What the custom agents' routes read and answer: the page's view (configuration, triggers
// with the next scheduled runs previewed, versions, the agent's runs with the skills they
// used) and the bodies the routes accept.
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { agentInstructions } from '#db/schema/agent-instructions'
import { clients } from '#db/schema/clients'
import { agentTriggerFires } from '#db/schema/custom-agents'
import { skills } from '#db/schema/skills'
import { customAgentView, type CustomAgentView, type Editor } from './agents'
import { PERSONAL_ONLY_TOOLS } from './access'
import { customToolRegistry } from './delegation'
import { accessLevel, listShares, type AccessLevel, type ShareRow } from './sharing'
import { readStudioPolicy } from './studio-policy'
import { HookSlug, previewSchedule } from './triggers'

export const CodenameParams = z.object({ codename: z.string().min(1).max(64).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'codename: lower-case words joined by hyphens') })
export const VersionParams = CodenameParams.extend({ version: z.coerce.number().int().min(1) })
export const DuplicateBody = z.object({ codename: CodenameParams.shape.codename, nickname: z.string().trim().min(1).max(64) }).strict()
export const KillBody = z.object({ killed: z.boolean() }).strict()
export const HookParams = CodenameParams.extend({ slug: HookSlug })
export const HookSecretBody = z.object({ rotate: z.boolean().default(false) }).strict()
export const TestRunBody = z
  .object({
    request: z.string().trim().min(1, 'request: say what the agent should do').max(20_000),
    /**
     * Uploads (POST /api/agents/files) given to the run as inputs: the agent reads them with read_uploaded_file, if its allowlist holds it.
     */
    fileIds: z.array(z.string().uuid()).max(20).default([]),
  })
  .strict()

export interface AgentRunRow {
  id: string
  trigger: string
  status: string
  request: string
  answer: string | null
  error: string | null
  parentRunId: string | null
  rerunOf: string | null
  createdAt: Date
  skills: string[]
}

export interface CustomAgentPage extends CustomAgentView {
  schedules: Array<{ triggerId: number, cron: string, description: string, next: string[] }>
  runs: AgentRunRow[]
  fires: Array<{ triggerId: number, outcome: string, runId: string | null, detail: string, firedAt: Date }>
  /** What the Settings tab offers: the owner's instruction documents, the skills, the tenants. */
  options: {
    tools: Array<{ name: string, class: string, description: string }>
    instructions: Array<{ id: string, title: string }>
    skills: Array<{ id: number, name: string }>
    tenants: Array<{ id: string, name: string }>
  }
  /** The viewer's level on the agent (owner, founder: full) and, for `full`, who it is shared with. */
  level: AccessLevel
  shares: ShareRow[]
  /** The studio policy's tools (null: every tool): an allowlisted tool outside it never reaches a run. */
  studioTools: readonly string[] | null
}

export async function customAgentPage(db: Db, viewer: Editor, codename: string, now = new Date()): Promise<CustomAgentPage> {
  const view = await customAgentView(db, viewer, codename)
  const level = (await accessLevel(db, viewer, view.agent))!
  const tools = customToolRegistry()
    .list()
    .filter(tool => !tool.allowlistOnly && !PERSONAL_ONLY_TOOLS.includes(tool.name))
    .map(tool => ({ name: tool.name, class: tool.class, description: tool.description }))
  const schedules = view.triggers.filter(trigger => trigger.kind === 'schedule' && trigger.cron).map(trigger => ({ triggerId: trigger.id, cron: trigger.cron!, ...previewSchedule(trigger.cron!, now) }))
  const [runs, fires, instructions, skillRows, tenants, shares, policy] = await Promise.all([
    db
      .select({
        id: agentRuns.id,
        trigger: agentRuns.trigger,
        status: agentRuns.status,
        request: agentRuns.request,
        answer: agentRuns.answer,
        error: agentRuns.error,
        parentRunId: agentRuns.parentRunId,
        rerunOf: agentRuns.rerunOf,
        createdAt: agentRuns.createdAt,
      })
      .from(agentRuns)
      .where(eq(agentRuns.agent, codename))
      .orderBy(desc(agentRuns.createdAt))
      .limit(50),
    db
      .select({
        triggerId: agentTriggerFires.triggerId,
        outcome: agentTriggerFires.outcome,
        runId: agentTriggerFires.runId,
        detail: agentTriggerFires.detail,
        firedAt: agentTriggerFires.firedAt,
      })
      .from(agentTriggerFires)
      .where(eq(agentTriggerFires.codename, codename))
      .orderBy(desc(agentTriggerFires.firedAt))
      .limit(50),
    db
      .select({ id: agentInstructions.id, title: agentInstructions.title })
      .from(agentInstructions)
      .where(and(eq(agentInstructions.ownerEmail, view.agent.ownerEmail), isNull(agentInstructions.archivedAt))),
    db.select({ id: skills.id, name: skills.name }).from(skills).orderBy(asc(skills.name)),
    db.select({ id: clients.id, name: clients.name }).from(clients).orderBy(asc(clients.name)),
    level === 'full' ? listShares(db, codename) : Promise.resolve([]),
    readStudioPolicy(db),
  ])
  const steps
    = runs.length > 0
      ? await db
          .select({ runId: agentRunSteps.runId, skills: agentRunSteps.skills })
          .from(agentRunSteps)
          .where(
            inArray(
              agentRunSteps.runId,
              runs.map(run => run.id),
            ),
          )
      : []
  const skillsOf = (id: string) => [...new Set(steps.filter(step => step.runId === id).flatMap(step => step.skills))]
  // Instruction documents are personal: someone the agent is shared with sees only the linked one's title.
  const documents = viewer.email === view.agent.ownerEmail ? instructions : instructions.filter(doc => doc.id === view.agent.instructionId)
  return {
    ...view,
    schedules,
    runs: runs.map(run => ({ ...run, skills: skillsOf(run.id) })),
    fires,
    options: { tools, instructions: documents, skills: skillRows, tenants },
    level,
    shares,
    studioTools: policy.tools,
  }
}
