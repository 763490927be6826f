// The agent engine's first tools wired to the hub's domains (issue 19, Deliver 3): memory
// recall and vault notes, worksites, the Atlas inbox, agent briefings, spawns and the team
// mail facade. It lives in hub, the wiring layer above every domain, because the engine
// (layers/agents) may not import atlas or worksites; the engine sees only the ToolPorts interface.
import { rmSync } from 'node:fs'
import { and, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { clients } from '#db/schema/clients'
import { memNotes } from '#db/schema/mem'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { workTasks } from '#db/schema/worksites'
import { skills } from '#db/schema/skills'
import { ZodError } from 'zod'
import { createSkill } from '#layers/skills/core/library'
import { SkillError } from '#layers/skills/core/errors'
import { formatBriefing } from '#layers/agents/core/briefing'
import { missionBriefFrom, scarRecallFrom, userCoreFrom } from '#layers/agents/core/memory-adapters'
import type { ToolPorts } from '#layers/agents/core/engine/ports'
import { ToolError } from '#layers/agents/core/engine/tools'
import { EngineError } from '#layers/agents/core/engine/errors'
import { proposeChange, withdrawProposal } from '#layers/agents/core/instructions/proposals'
import { recall } from '#layers/memory/core/recall/engine'
import { getNote } from '#layers/memory/core/vault/notes'
import { resolveVaultPath } from '#layers/memory/core/vault/paths'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { createTask, getItem } from '#layers/worksites/core/items'
import { getMessageDetail, listInbox } from '#layers/atlas/core/queries'
import type { Mailer } from '#layers/atlas/core/mail/mailer'
import { readTeamSignature } from '#layers/spawn/core/config'
import { hubWritePorts } from './agent-write-ports'

export interface AgentPortsDeps {
  db: Db
  embedder: Embedder
  vaultDir: string
  /** The outbound mail facade (refuses any recipient outside the team by itself). */
  mailer: () => Mailer
  team: string[]
  /** The team's signature under reply drafts (none: the default of ATLAS_TEAM_SIGNATURE). */
  signature?: string
}

const pattern = (text: string) => `%${text.replace(/[\\%_]/g, match => `\\${match}`)}%`

export function hubToolPorts(deps: AgentPortsDeps): ToolPorts {
  const { db } = deps
  return {
    ...hubWritePorts({ db, vaultDir: deps.vaultDir, signature: deps.signature ?? readTeamSignature({}) }),
    ...memoryReadPorts(deps),
    ...workItemReadPorts(db),
    ...messageReadPorts(db),
    ...briefingPorts(deps),
    ...taskPorts(db),
    ...inboxNotePorts(deps.vaultDir),
    ...spawnPorts(db),
    ...teamMailPorts(deps),
    ...instructionPorts(db),
    ...skillDraftPorts(db),
  }
}

/** Memory recall and vault notes: a tenant-scoped run sees its tenants' and the shared ones only. */
function memoryReadPorts(deps: AgentPortsDeps): Pick<ToolPorts, 'recall' | 'readNote'> {
  const { db } = deps
  return {
    recall: async (query, k, tenants) => {
      const scope = tenants ? await tenantSlugs(db, tenants) : null
      const response = await recall({ db, embedder: deps.embedder }, { query, k, mode: 'hybrid', belowFloor: 'drop', tenants: scope })
      return response.hits.map(hit => ({
        sourceType: hit.sourceType,
        sourceId: hit.sourceId,
        title: hit.title,
        snippet: hit.snippet,
        link: hit.link,
      }))
    },
    readNote: async (path, tenants) => {
      if (tenants) {
        // A note filed under a tenant (its front matter) is that tenant's: out of scope, it does not exist for the run.
        const [filed] = await db.select({ tenant: memNotes.tenant }).from(memNotes).where(eq(memNotes.path, path))
        if (filed?.tenant && !(await tenantSlugs(db, tenants)).includes(filed.tenant.toLowerCase())) return null
      }
      const note = await getNote(db, path)
      return note ? { path: note.path, title: note.title, body: note.body } : null
    },
  }
}

/** Worksites' items (tasks, jobs, chantiers), read. */
function workItemReadPorts(db: Db): Pick<ToolPorts, 'searchWorkItems' | 'readWorkItem'> {
  return {
    searchWorkItems: async (query, limit, tenants) => {
      // An allowlist run sees the studio's own (tenant-less) items and its granted tenants' only, filtered in the query.
      const projectScope = tenantScope(sql`p.tenant_id`, tenants)
      const chantierScope = tenantScope(sql`coalesce(c.tenant_id, p.tenant_id)`, tenants)
      const rows = await db.execute<{
        id: string
        entity: 'chantier' | 'job' | 'task'
        title: string
        status: string
        project: string | null
      }>(sql`
        (select t.id, 'task' as entity, t.title, t.status, p.name as project from work_tasks t join work_projects p on p.id = t.project_id where t.title ilike ${pattern(query)} ${projectScope})
        union all (select j.id, 'job', j.title, j.status, p.name from work_jobs j join work_projects p on p.id = j.project_id where j.title ilike ${pattern(query)} ${projectScope})
        union all (select c.id, 'chantier', c.title, c.status, p.name from work_chantiers c left join work_projects p on p.id = c.project_id where c.title ilike ${pattern(query)} ${chantierScope})
        limit ${limit}`)
      return [...rows]
    },
    readWorkItem: async (id, tenants) => {
      for (const entity of ['task', 'job', 'chantier'] as const) {
        const item = await getItem(db, entity, id)
        if (!item) continue
        if (tenants && !(await workItemInTenants(db, entity, id, tenants))) return null
        return { entity, ...item } as Record<string, unknown>
      }
      return null
    },
  }
}

/** The Atlas inbox, read. */
function messageReadPorts(db: Db): Pick<ToolPorts, 'searchMessages' | 'readMessage'> {
  return {
    searchMessages: async (query, limit, tenants) => {
      // An allowlist run reads only its granted tenants' messages: the filter is in the query, not after it.
      if (tenants) return await searchTenantMessages(db, query, limit, tenants)
      const list = await listInbox(db, { q: query, pageSize: limit })
      return list.items.map(item => ({
        id: item.messageId,
        subject: item.subject ?? '',
        from: item.fromAddress ?? null,
        receivedAt: item.receivedAt ? new Date(item.receivedAt).toISOString() : null,
        intent: item.intent ?? null,
      }))
    },
    readMessage: async (id, tenants) => {
      if (tenants && !(await messageInTenants(db, id, tenants))) return null
      const detail = await getMessageDetail(db, id)
      return detail ? (detail as unknown as Record<string, unknown>) : null
    },
  }
}

/** Another agent's briefing, its scars recalled read-only. */
function briefingPorts(deps: AgentPortsDeps): Pick<ToolPorts, 'agentBriefing'> {
  const { db } = deps
  return {
    agentBriefing: async (codename, task, tenants) => {
      try {
        const scope = tenants ? await tenantSlugs(db, tenants) : null
        const briefing = await formatBriefing(
          {
            db,
            recallScars: scarRecallFrom({ db, embedder: deps.embedder }, { readOnly: true, tenants: scope }),
            missionBrief: missionBriefFrom(db),
            userCore: userCoreFrom(db),
          },
          { codename, task: task || undefined },
        )
        return { codename, text: briefing.text }
      }
      catch (error) {
        if ((error as { code?: string }).code === 'unknown_agent') return null
        throw error
      }
    },
  }
}

/** A task the agent creates, and its undo. */
function taskPorts(db: Db): Pick<ToolPorts, 'createTask' | 'deleteCreatedTask'> {
  return {
    createTask: async (input, actor) => {
      const task = await createTask(db, { jobId: input.jobId, title: input.title, description: input.description }, actor)
      return { id: task.id, title: task.title }
    },
    deleteCreatedTask: async (id) => {
      // A task a spawn already works on is no longer the agent's draft: the undo is refused.
      const [spawn] = await db.select({ id: atlasSpawns.id }).from(atlasSpawns).where(eq(atlasSpawns.taskId, id)).limit(1)
      if (spawn) return false
      const deleted = await db.delete(workTasks).where(eq(workTasks.id, id)).returning({ id: workTasks.id })
      return deleted.length > 0
    },
  }
}

/** A note the agent drops in the vault's inbox, and its undo. */
function inboxNotePorts(vaultDir: string): Pick<ToolPorts, 'writeInboxNote' | 'deleteInboxNote'> {
  return {
    writeInboxNote: async (input, actor) => ({
      path: writeInboxNote(vaultDir, { name: input.name, body: input.body, frontmatter: { author: actor } }),
    }),
    deleteInboxNote: async (path) => {
      const target = resolveVaultPath(vaultDir, path)
      if (target.space !== 'inbox') return false
      try {
        rmSync(target.absolute)
        return true
      }
      catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
        throw error
      }
    },
  }
}

/** A spawn queued for a task whose chantier came from a message. */
function spawnPorts(db: Db): Pick<ToolPorts, 'queueSpawn'> {
  return {
    queueSpawn: async (taskId, actor) => {
      // A spawn belongs to a message (its thread, its reply): the task's chantier must come from one.
      const rows = await db.execute<{ message_id: string | null }>(sql`
        select c.source_message_id as message_id from work_tasks t join work_chantiers c on c.id = t.chantier_id where t.id = ${taskId}::uuid`)
      if (rows.length === 0) throw new ToolError('not_found', `no task ${taskId}`)
      const messageId = rows[0]!.message_id === null ? null : Number(rows[0]!.message_id)
      if (messageId === null)
        throw new ToolError('no_source_message', 'this task\'s chantier did not come from a message: a spawn needs one')
      const live = await db
        .select({ id: atlasSpawns.id })
        .from(atlasSpawns)
        .where(and(eq(atlasSpawns.messageId, messageId), or(eq(atlasSpawns.status, 'queued'), eq(atlasSpawns.status, 'running'))))
        .limit(1)
      if (live.length > 0) throw new ToolError('spawn_live', `message #${messageId} already has a live spawn`)
      // Queued here; the spawn orchestrator's next cycle gives a queued spawn without a job its job.
      const [spawn] = await db
        .insert(atlasSpawns)
        .values({ messageId, iteration: 1, status: 'queued', queuedBy: actor.slice(0, 200), taskId })
        .returning({ id: atlasSpawns.id })
      return { spawnId: spawn!.id, messageId }
    },
  }
}

/** The team's addresses and the outbound mail facade. */
function teamMailPorts(deps: AgentPortsDeps): Pick<ToolPorts, 'teamEmails' | 'sendTeamMail'> {
  return {
    teamEmails: async () => deps.team,
    sendTeamMail: async (mail, actor) => {
      const result = await deps.mailer().send({ to: mail.to, subject: mail.subject, text: mail.body }, { actor })
      if (!result.sent) throw new ToolError(result.reason, `the mail was not sent (${result.reason})`)
      return { messageId: result.messageId }
    },
  }
}

/** Proposed changes to an agent's instructions, and their withdrawal. */
function instructionPorts(db: Db): Pick<ToolPorts, 'proposeInstructionChange' | 'withdrawInstructionProposal'> {
  return {
    proposeInstructionChange: async (input) => {
      try {
        const { proposal, instructionId } = await proposeChange(db, input)
        return { proposalId: proposal.id, instructionId, baseVersion: proposal.baseVersion, diff: proposal.diff }
      }
      catch (error) {
        // The model is told why (no active document, nothing changed), as a step error.
        if (error instanceof EngineError) throw new ToolError(error.code, error.message)
        throw error
      }
    },
    withdrawInstructionProposal: id => withdrawProposal(db, id),
  }
}

/** Skill drafts the assistant writes, and their discard. */
function skillDraftPorts(db: Db): Pick<ToolPorts, 'draftSkill' | 'discardDraftSkill'> {
  return {
    draftSkill: async (input) => {
      const { ownerEmail, ...fields } = input
      const skill = await createSkill(
        db,
        { email: ownerEmail, role: 'operator' },
        { ...fields, visibility: 'private' },
        { origin: 'assistant', draft: true },
      ).catch((error: unknown) => {
        if (error instanceof SkillError || error instanceof ZodError)
          throw new ToolError(error instanceof SkillError ? error.code : 'invalid_input', error.message)
        throw error
      })
      return { skillId: skill.id, name: skill.name, link: `/hub/skills/${skill.id}` }
    },
    discardDraftSkill: async (skillId) => {
      const deleted = await db
        .delete(skills)
        .where(and(eq(skills.id, skillId), eq(skills.draft, true)))
        .returning({ id: skills.id })
      return deleted.length > 0
    },
  }
}

async function searchTenantMessages(db: Db, query: string, limit: number, tenants: string[]) {
  if (tenants.length === 0) return []
  const pattern = `%${query.replace(/[\\%_]/g, char => `\\${char}`)}%`
  const rows = await db
    .select({
      id: atlasMessages.id,
      subject: atlasMessages.subject,
      from: atlasMessages.fromAddress,
      receivedAt: atlasMessages.receivedAt,
      intent: atlasInbox.intent,
      tenantId: atlasInbox.tenantId,
    })
    .from(atlasMessages)
    .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .where(and(inArray(atlasInbox.tenantId, tenants), or(ilike(atlasMessages.subject, pattern), ilike(atlasMessages.fromAddress, pattern))))
    .orderBy(desc(atlasMessages.id))
    .limit(limit)
  return rows.map(row => ({ id: row.id, subject: row.subject ?? '', from: row.from ?? null, receivedAt: row.receivedAt ? new Date(row.receivedAt).toISOString() : null, intent: row.intent ?? null, tenantId: row.tenantId }))
}

async function messageInTenants(db: Db, id: number, tenants: string[]): Promise<boolean> {
  if (tenants.length === 0) return false
  const [row] = await db
    .select({ id: atlasInbox.id })
    .from(atlasInbox)
    .where(and(eq(atlasInbox.messageId, id), inArray(atlasInbox.tenantId, tenants)))
    .limit(1)
  return Boolean(row)
}

/** The slugs of the granted tenants (memory files chunks and notes under a tenant's slug). */
async function tenantSlugs(db: Db, tenants: string[]): Promise<string[]> {
  if (tenants.length === 0) return []
  const rows = await db.select({ slug: clients.slug }).from(clients).where(inArray(clients.id, tenants))
  return rows.map(row => row.slug.toLowerCase())
}

/** `and (<column> is null or <column> in tenants)`; nothing when the run is not scoped. */
function tenantScope(column: SQL, tenants: string[] | null | undefined): SQL {
  if (!tenants) return sql``
  return tenants.length > 0 ? sql`and (${column} is null or ${column} in (${sql.join(tenants.map(id => sql`${id}::uuid`), sql`, `)}))` : sql`and ${column} is null`
}

async function workItemInTenants(db: Db, entity: 'task' | 'job' | 'chantier', id: string, tenants: string[]): Promise<boolean> {
  const rows = await db.execute<{ tenant: string | null }>(entity === 'chantier'
    ? sql`select coalesce(c.tenant_id, p.tenant_id)::text as tenant from work_chantiers c left join work_projects p on p.id = c.project_id where c.id = ${id}::uuid`
    : sql`select p.tenant_id::text as tenant from ${sql.raw(entity === 'task' ? 'work_tasks' : 'work_jobs')} x join work_projects p on p.id = x.project_id where x.id = ${id}::uuid`)
  const tenant = rows[0]?.tenant ?? null
  return tenant === null || tenants.includes(tenant)
}
