// The audit bundle of a post-project debrief (seed §4.4): a tenant's project with its
// chantiers, jobs and tasks (the work items), the recent iterations, the recent spawns of its
// tasks with their events truncated, and the scars linked to them. Every part is capped and
// the rendered whole too, so that the model's input stays within its limits.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'

/** The rendered bundle never exceeds this many characters (≈ 15k tokens). */
export const BUNDLE_MAX_CHARS = 60_000
const CAP = { chantiers: 30, jobs: 60, tasks: 120, iterations: 40, spawns: 10, eventsPerSpawn: 20, scars: 20, text: 400, eventText: 240 }

export interface BundleProject {
  id: string
  name: string
  status: string
  missionBrief: string
  tenantId: string | null
  tenantSlug: string | null
  tenantName: string | null
  createdAt: string
}

export interface DebriefBundle {
  project: BundleProject
  /** Jobs plus tasks: what the ROI guard counts. */
  workItems: number
  chantiers: Array<{ title: string, status: string, brief: string }>
  jobs: Array<{ title: string, status: string, scope: string }>
  tasks: Array<{ title: string, status: string, scope: string, job: string }>
  iterations: Array<{ task: string, step: number, outcome: string, action: string, observation: string, at: string }>
  spawns: Array<{
    id: string
    status: string
    outcome: string | null
    reason: string | null
    tokensIn: number | null
    tokensOut: number | null
    briefingBudget: number | null
    costUsd: number | null
    durationMs: number | null
    events: string[]
  }>
  scars: Array<{ id: number, kind: string, title: string, lesson: string }>
  tokens: { actualIn: number, actualOut: number, briefingBudget: number, spawns: number }
}

export class DebriefError extends Error {
  constructor(readonly code: 'project_not_found' | 'tenant_mismatch' | 'roi_guard' | 'model_unavailable' | 'bad_input', message: string, readonly details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'DebriefError'
  }
}

export function clip(text: string | null | undefined, max: number): string {
  const value = (text ?? '').replace(/\s+/g, ' ').trim()
  return value.length > max ? `${value.slice(0, max - 1)}…` : value
}

/** The readable part of a spawn event: its text or tool use, never the raw protocol. */
export function eventText(type: string, tool: string | null, payload: unknown): string {
  const parts: string[] = []
  const visit = (value: unknown, depth: number) => {
    if (depth > 5 || parts.join(' ').length > CAP.eventText) return
    if (typeof value === 'string') return
    if (Array.isArray(value)) return value.forEach(v => visit(v, depth + 1))
    if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>
      if (typeof record.text === 'string') parts.push(record.text)
      if (typeof record.result === 'string') parts.push(record.result)
      for (const [key, child] of Object.entries(record)) if (key !== 'text' && key !== 'result') visit(child, depth + 1)
    }
  }
  visit(payload, 0)
  return clip(`${type}${tool ? `(${tool})` : ''}: ${parts.join(' ')}`, CAP.eventText)
}

type Row = Record<string, unknown>
const str = (value: unknown) => (value === null || value === undefined ? null : String(value))
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value))
const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value ?? ''))

/** Finds the project (by id, or by exact name within the tenant) and checks it is the tenant's. */
export async function findProject(db: Db, ref: { project: string, tenant?: string }): Promise<BundleProject> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref.project)
  const rows = await db.execute<Row>(sql`
    select p.id, p.name, p.status, p.mission_brief, p.tenant_id, p.created_at, c.slug, c.name as tenant_name
    from work_projects p left join clients c on c.id = p.tenant_id
    where ${isUuid ? sql`p.id = ${ref.project}::uuid` : sql`p.name = ${ref.project}`}
    order by p.created_at desc limit 2`)
  const matching = ref.tenant ? rows.filter(r => r.slug === ref.tenant || r.tenant_id === ref.tenant) : rows
  if (rows.length > 0 && matching.length === 0) throw new DebriefError('tenant_mismatch', `project "${ref.project}" is not a project of tenant "${ref.tenant}"`, { project: ref.project, tenant: ref.tenant })
  if (matching.length === 0) throw new DebriefError('project_not_found', `no project "${ref.project}"`, { project: ref.project })
  if (matching.length > 1) throw new DebriefError('bad_input', `several projects are named "${ref.project}": give its id`, { project: ref.project })
  const r = matching[0]!
  return { id: String(r.id), name: String(r.name), status: String(r.status), missionBrief: String(r.mission_brief ?? ''), tenantId: str(r.tenant_id), tenantSlug: str(r.slug), tenantName: str(r.tenant_name), createdAt: iso(r.created_at) }
}

export async function buildBundle(db: Db, project: BundleProject): Promise<DebriefBundle> {
  const id = project.id
  const chantiers = await db.execute<Row>(sql`select title, status, brief from work_chantiers where project_id = ${id}::uuid order by created_at limit ${CAP.chantiers}`)
  const [counts] = await db.execute<Row>(sql`select (select count(*) from work_jobs where project_id = ${id}::uuid)::int as jobs, (select count(*) from work_tasks where project_id = ${id}::uuid)::int as tasks`)
  const jobs = await db.execute<Row>(sql`select title, status, scope from work_jobs where project_id = ${id}::uuid order by created_at limit ${CAP.jobs}`)
  const tasks = await db.execute<Row>(sql`select t.title, t.status, t.scope, j.title as job from work_tasks t join work_jobs j on j.id = t.job_id where t.project_id = ${id}::uuid order by t.created_at limit ${CAP.tasks}`)
  const iterations = await db.execute<Row>(sql`
    select t.title as task, i.step, i.outcome, i.action, i.observation, i.created_at from work_iterations i join work_tasks t on t.id = i.task_id
    where t.project_id = ${id}::uuid order by i.created_at desc limit ${CAP.iterations}`)
  const spawns = await db.execute<Row>(sql`
    select s.id, s.status, s.outcome, s.reason, s.tokens_in, s.tokens_out, s.briefing_budget, s.cost_usd, s.duration_ms from atlas_spawns s join work_tasks t on t.id = s.task_id
    where t.project_id = ${id}::uuid order by s.queued_at desc limit ${CAP.spawns}`)
  const spawnIds = spawns.map(s => String(s.id))
  const events = spawnIds.length === 0
    ? []
    : await db.execute<Row>(sql`
      select spawn_id, event_type, tool_name, payload from (
        select e.*, row_number() over (partition by e.spawn_id order by e.seq desc) as n from atlas_spawn_events e
        where e.spawn_id in (${sql.join(spawnIds.map(s => sql`${s}::uuid`), sql`, `)}) and e.event_type <> 'stream'
      ) x where n <= ${CAP.eventsPerSpawn} order by spawn_id, seq`)
  const scars = await db.execute<Row>(sql`
    select l.id, l.kind, l.title, l.check_added from learn_lessons l
    where l.kind <> 'success' and l.archived_at is null and (
      l.source_spawn_id in (select s.id from atlas_spawns s join work_tasks t on t.id = s.task_id where t.project_id = ${id}::uuid)
      ${project.tenantId ? sql`or l.tenant_id = ${project.tenantId}::uuid` : sql``})
    order by l.created_at desc limit ${CAP.scars}`)
  const spawnRows = spawns.map(s => ({
    id: String(s.id),
    status: String(s.status),
    outcome: str(s.outcome),
    reason: s.reason ? clip(String(s.reason), CAP.text) : null,
    tokensIn: num(s.tokens_in),
    tokensOut: num(s.tokens_out),
    briefingBudget: num(s.briefing_budget),
    costUsd: num(s.cost_usd),
    durationMs: num(s.duration_ms),
    events: events.filter(e => String(e.spawn_id) === String(s.id)).map(e => eventText(String(e.event_type), str(e.tool_name), e.payload)),
  }))
  return {
    project: { ...project, missionBrief: clip(project.missionBrief, 2_000) },
    workItems: Number(counts?.jobs ?? 0) + Number(counts?.tasks ?? 0),
    chantiers: chantiers.map(c => ({ title: String(c.title), status: String(c.status), brief: clip(String(c.brief), CAP.text) })),
    jobs: jobs.map(j => ({ title: String(j.title), status: String(j.status), scope: String(j.scope) })),
    tasks: tasks.map(t => ({ title: String(t.title), status: String(t.status), scope: String(t.scope), job: String(t.job) })),
    iterations: iterations.map(i => ({
      task: String(i.task),
      step: Number(i.step),
      outcome: String(i.outcome),
      action: clip(String(i.action), CAP.text),
      observation: clip(String(i.observation), CAP.text),
      at: iso(i.created_at),
    })),
    spawns: spawnRows,
    scars: scars.map(s => ({
      id: Number(s.id),
      kind: String(s.kind),
      title: clip(String(s.title), 200),
      lesson: clip(String(s.check_added), CAP.text),
    })),
    tokens: {
      actualIn: spawnRows.reduce((sum, s) => sum + (s.tokensIn ?? 0), 0),
      actualOut: spawnRows.reduce((sum, s) => sum + (s.tokensOut ?? 0), 0),
      briefingBudget: spawnRows.reduce((sum, s) => sum + (s.briefingBudget ?? 0), 0),
      spawns: spawnRows.length,
    },
  }
}

/**
 * The bundle as the model reads it: JSON, capped. Over the cap the spawns' events go first,
 * then the iterations, then everything is clipped (marked, so the model knows).
 */
export function renderBundle(bundle: DebriefBundle, maxChars = BUNDLE_MAX_CHARS): string {
  let text = JSON.stringify(bundle, null, 1)
  if (text.length <= maxChars) return text
  text = JSON.stringify({ ...bundle, spawns: bundle.spawns.map(s => ({ ...s, events: s.events.slice(-3) })) }, null, 1)
  if (text.length <= maxChars) return text
  text = JSON.stringify(
    { ...bundle, iterations: bundle.iterations.slice(0, 10), spawns: bundle.spawns.map(s => ({ ...s, events: [] })) },
    null,
    1,
  )
  if (text.length <= maxChars) return text
  const marker = '\n… [bundle truncated to fit the model input]'
  return text.slice(0, maxChars - marker.length) + marker
}
