// The inbox of chantier drafts (the classifier's, status draft): a person promotes a draft
// into a planned chantier of a project, with its jobs and their tasks, in one transaction;
// or rejects it with a reason, which the classifier's calibration report counts
// (layers/atlas/core/calibration.ts). Both are refused on anything but a draft (409 not_draft).
import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAudit } from '#db/schema/atlas'
import { workChantiers } from '#db/schema/work'
import { workProjects } from '#db/schema/worksites'
import type { PromoteInputT } from '../shared/api'
import { notFound, WorksitesError } from './errors'
import { recordHistory } from './history'
import { getItem, insertJob, insertTask } from './items'
import { keyset, pageOf, type Page } from './paging'
import { selectChantiers, type Chantier } from './views'

export async function listDrafts(db: Db, query: { cursor?: string, limit: number }): Promise<Page<Chantier>> {
  const page = keyset('-createdAt', { createdAt: { expr: sql`ch.created_at`, type: 'timestamptz' } }, sql`ch.id`, query.cursor)
  const rows = await selectChantiers(db, { where: sql`ch.status = 'draft' and ${page.where}`, orderBy: page.orderBy, limit: query.limit + 1, key: page.key })
  const [count] = await db.execute<{ n: number }>(sql`select count(*)::int as n from work_chantiers where status = 'draft'`)
  return { ...pageOf(rows, query.limit), total: count?.n ?? 0 }
}

async function lockDraft(tx: Parameters<Parameters<Db['transaction']>[0]>[0], id: string) {
  const [current] = await tx.select().from(workChantiers).where(eq(workChantiers.id, id)).for('update')
  if (!current) throw notFound('chantier', id)
  if (current.status !== 'draft') throw new WorksitesError(409, 'not_draft', `The chantier is ${current.status}: only a draft is promoted or rejected.`, { status: current.status })
  return current
}

export async function promoteDraft(db: Db, id: string, input: PromoteInputT, actor: string): Promise<Chantier> {
  await db.transaction(async (tx) => {
    const current = await lockDraft(tx, id)
    const [project] = await tx
      .select({ id: workProjects.id, tenantId: workProjects.tenantId })
      .from(workProjects)
      .where(eq(workProjects.id, input.projectId))
    if (!project) throw new WorksitesError(404, 'not_found', `No project ${input.projectId}.`, { entity: 'project', field: 'projectId' })
    await tx.update(workChantiers).set({
      status: 'planned', projectId: project.id, tenantId: current.tenantId ?? project.tenantId, statusReason: null, updatedAt: new Date(),
      ...(input.title ? { title: input.title } : {}), ...(input.brief !== undefined ? { brief: input.brief } : {}),
    }).where(eq(workChantiers.id, id))
    await recordHistory(tx, { entity: 'chantier', id, kind: 'transition', from: 'draft', to: 'planned', actor, details: { projectId: project.id, jobs: input.jobs.length } })
    for (const job of input.jobs) {
      const jobId = await insertJob(tx, { chantierId: id, title: job.title, description: job.description ?? '', scope: job.scope }, actor)
      for (const title of job.tasks ?? []) await insertTask(tx, { jobId, title, description: '' }, actor)
    }
    if (current.sourceMessageId) {
      await tx.insert(atlasAudit).values({ messageId: current.sourceMessageId, action: 'chantier_promoted', actor, details: { chantierId: id, projectId: project.id, jobs: input.jobs.length } })
    }
  })
  return (await getItem(db, 'chantier', id))!
}

export async function rejectDraft(db: Db, id: string, reason: string, actor: string): Promise<Chantier> {
  await db.transaction(async (tx) => {
    const current = await lockDraft(tx, id)
    await tx.update(workChantiers).set({ status: 'rejected', statusReason: reason, updatedAt: new Date() }).where(eq(workChantiers.id, id))
    await recordHistory(tx, { entity: 'chantier', id, kind: 'transition', from: 'draft', to: 'rejected', reason, actor })
    if (current.sourceMessageId) {
      await tx.insert(atlasAudit).values({ messageId: current.sourceMessageId, action: 'chantier_rejected', actor, details: { chantierId: id, reason } })
    }
  })
  return (await getItem(db, 'chantier', id))!
}
