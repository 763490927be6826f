// Projects: per tenant (a clients row; none for the studio's own), with the mission brief the
// briefings of its spawns quote and the repository they check out. A project holding open
// chantiers (draft, planned, active) cannot be deleted: it is archived instead.
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { clients } from '#db/schema/clients'
import { workChantiers } from '#db/schema/work'
import { workProjects } from '#db/schema/worksites'
import type { ProjectCreateT, ProjectListQueryT, ProjectPatchT } from '../shared/api'
import { notFound, WorksitesError } from './errors'
import { recordHistory } from './history'
import { ownerColumnsFor } from './owners'
import { keyset, likePattern, pageOf, type Page } from './paging'
import { one, selectProjects, type Project } from './views'
import { OPEN_CHANTIER_STATUSES } from './vocabulary'

const SORTS = {
  updatedAt: { expr: sql`p.updated_at`, type: 'timestamptz' },
  createdAt: { expr: sql`p.created_at`, type: 'timestamptz' },
  title: { expr: sql`p.name`, type: 'text' },
  status: { expr: sql`p.status`, type: 'text' },
} as const

export async function listProjects(db: Db, query: ProjectListQueryT): Promise<Page<Project>> {
  const filters = sql.join([
    query.tenantId ? sql`p.tenant_id = ${query.tenantId}::uuid` : sql`true`,
    query.status ? sql`p.status = ${query.status}` : sql`true`,
    query.q ? sql`(p.name ilike ${likePattern(query.q)} or p.mission_brief ilike ${likePattern(query.q)})` : sql`true`,
  ], sql` and `)
  const page = keyset(query.sort, SORTS, sql`p.id`, query.cursor)
  const rows = await selectProjects(db, { where: sql`${filters} and ${page.where}`, orderBy: page.orderBy, limit: query.limit + 1, key: page.key })
  const [count] = await db.execute<{ n: number }>(sql`select count(*)::int as n from work_projects p where ${filters}`)
  return { ...pageOf(rows, query.limit), total: count?.n ?? 0 }
}

export async function getProject(db: Pick<Db, 'execute'>, id: string): Promise<Project | null> {
  return await one(selectProjects(db, { where: sql`p.id = ${id}::uuid` }))
}

async function checkTenant(db: Pick<Db, 'select'>, tenantId: string | null | undefined): Promise<void> {
  if (!tenantId) return
  const [tenant] = await db.select({ id: clients.id }).from(clients).where(eq(clients.id, tenantId)).limit(1)
  if (!tenant) throw new WorksitesError(400, 'unknown_tenant', `No tenant ${tenantId}.`, { field: 'tenantId' })
}

export async function createProject(db: Db, input: ProjectCreateT, actor: string): Promise<Project> {
  const id = await db.transaction(async (tx) => {
    await checkTenant(tx, input.tenantId)
    const owner = await ownerColumnsFor(tx, input.owner)
    const [row] = await tx.insert(workProjects).values({
      tenantId: input.tenantId ?? null, name: input.name, repository: input.repository || null, missionBrief: input.missionBrief ?? '', createdBy: actor, ...owner,
    }).returning({ id: workProjects.id })
    await recordHistory(tx, { entity: 'project', id: row!.id, kind: 'created', to: 'active', owner: input.owner, actor, details: { name: input.name } })
    return row!.id
  })
  return (await getProject(db, id))!
}

export async function updateProject(db: Db, id: string, patch: ProjectPatchT, actor: string): Promise<Project> {
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ id: workProjects.id }).from(workProjects).where(eq(workProjects.id, id)).for('update')
    if (!current) throw notFound('project', id)
    await checkTenant(tx, patch.tenantId)
    const values = Object.fromEntries(Object.entries({ name: patch.name, repository: patch.repository === '' ? null : patch.repository, missionBrief: patch.missionBrief, tenantId: patch.tenantId })
      .filter(([, value]) => value !== undefined))
    await tx.update(workProjects).set({ ...values, updatedAt: new Date() }).where(eq(workProjects.id, id))
    await recordAudit(tx, { actor, action: 'worksites.project_edited', target: `work_project:${id}`, details: { edited: Object.keys(values) } })
  })
  return (await getProject(db, id))!
}

/** Deletes a project and its closed chantiers (their jobs, tasks and iterations go with them). */
export async function deleteProject(db: Db, id: string, actor: string): Promise<{ ok: true, id: string }> {
  return await db.transaction(async (tx) => {
    const [current] = await tx.select({ id: workProjects.id, name: workProjects.name }).from(workProjects).where(eq(workProjects.id, id)).for('update')
    if (!current) throw notFound('project', id)
    const [open] = await tx.select({ n: sql<number>`count(*)::int` }).from(workChantiers)
      .where(and(eq(workChantiers.projectId, id), inArray(workChantiers.status, [...OPEN_CHANTIER_STATUSES])))
    if ((open?.n ?? 0) > 0) {
      throw new WorksitesError(409, 'has_open_children', `The project still has ${open!.n} open chantier(s) (draft, planned or active): finish, cancel or move them first, or archive the project.`, { open: open!.n })
    }
    await tx.delete(workProjects).where(eq(workProjects.id, id))
    await recordAudit(tx, { actor, action: 'worksites.project_deleted', target: `work_project:${id}`, details: { name: current.name } })
    return { ok: true as const, id }
  })
}

/** The mission brief a spawn working on this task quotes: its project's, when it has one. */
export async function taskMissionBrief(db: Pick<Db, 'execute'>, taskId: string): Promise<{ title: string, brief: string } | null> {
  const [row] = await db.execute<{ name: string, brief: string }>(sql`
    select p.name, p.mission_brief as brief from work_tasks t join work_projects p on p.id = t.project_id
    where t.id = ${taskId}::uuid and btrim(p.mission_brief) <> ''`)
  return row ? { title: `${row.name} — mission brief`, brief: row.brief.trim() } : null
}
