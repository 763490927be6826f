// The worksites API through the built hub (issue 16): a person's path (project, chantier, job,
// task, the board, a draft promoted with two jobs, another rejected and counted by the
// calibration report), and bad input — an unknown status, a task under a job of another
// project, a 10,000-character title, an owner that does not exist, an illegal move, a project
// with open chantiers — each a 400 or 409 with data.code and nothing written; a viewer reads
// the board and is refused every write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { recordFromMessage } from '#layers/worksites/tests/fixtures/world'
import type { Board, Chantier, Job, Page, Project, Task } from '#layers/worksites/shared/api'

let hub: Hub
let database: Database
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  hub = await startHub()
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
})

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, who: keyof typeof cookies = 'operator'): Promise<{ status: number, json: T & { data?: Record<string, unknown> } }> {
  const response = await fetch(`${hub.url}/api/worksites${path}`, {
    method,
    headers: { cookie: cookies[who], ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  return { status: response.status, json: await response.json() as T & { data?: Record<string, unknown> } }
}
const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const { status, json } = await api<T>(method, path, body)
  expect(status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(200)
  return json
}
const total = async (path: string) => (await ok<Page<unknown>>('GET', path)).total

/** A project with a planned chantier, a job and a task, made through the API. */
async function site(name: string) {
  const project = await ok<Project>('POST', '/projects', { name, missionBrief: 'Le site du client.', repository: 'git@example.test:site.git' })
  const chantier = await ok<Chantier>('POST', '/chantiers', { projectId: project.id, title: 'Refonte', brief: 'La page d\'accueil.' })
  const job = await ok<Job>('POST', '/jobs', { chantierId: chantier.id, title: 'Maquette' })
  const task = await ok<Task>('POST', '/tasks', { jobId: job.id, title: 'Accueil' })
  return { project, chantier, job, task }
}

describe('worksites through the hub', () => {
  it('builds a project down to a task, moves it on the board, promotes a draft with two jobs and rejects another, counted by the calibration', async () => {
    const a = await site('Site A')
    expect(a.chantier).toMatchObject({ status: 'planned', projectId: a.project.id, sourceMessageId: null })
    expect(a.task).toMatchObject({ status: 'todo', position: 0, jobTitle: 'Maquette', chantierTitle: 'Refonte', projectId: a.project.id })
    const moved = await ok<Task>('POST', `/tasks/${a.task.id}/transition`, { to: 'in_progress', position: 0 })
    expect(moved.status).toBe('in_progress')
    const board = await ok<Board>('GET', `/projects/${a.project.id}/board`)
    expect(board.columns.find(c => c.status === 'in_progress')!.tasks.map(t => t.id)).toEqual([a.task.id])
    expect((await ok<{ items: Array<{ kind: string }> }>('GET', `/tasks/${a.task.id}/timeline`)).items.map(i => i.kind)).toContain('transition')
    expect(await ok('GET', `/tasks/${a.task.id}/iterations`)).toEqual({ items: [] })
    const recalled = await ok<{ hits: unknown[], modeUsed: string | null, error: string | null }>('POST', '/recall', { title: 'Refonte de la page d\'accueil', description: 'Nouveau design' })
    expect(Array.isArray(recalled.hits)).toBe(true)
    expect(recalled.modeUsed !== null || recalled.error !== null).toBe(true)
    const vocabulary = await ok<{ entities: { task: { transitions: Record<string, string[]> } } }>('GET', '/vocabulary')
    expect(vocabulary.entities.task.transitions.todo).toEqual(['in_progress', 'blocked', 'cancelled'])

    const keep = await recordFromMessage(database.db, 'chantier', { subject: 'Nouveau site vitrine' })
    const drop = await recordFromMessage(database.db, 'chantier', { subject: 'Offre de référencement' })
    const drafts = await ok<Page<Chantier>>('GET', '/drafts')
    expect(drafts.items.map(d => d.id)).toEqual(expect.arrayContaining([keep.record.id, drop.record.id]))
    const promoted = await ok<Chantier>('POST', `/drafts/${keep.record.id}/promote`, { projectId: a.project.id, jobs: [{ title: 'Maquettes', tasks: ['Accueil', 'Contact'] }, { title: 'Intégration' }] })
    expect(promoted).toMatchObject({ status: 'planned', projectId: a.project.id, jobCount: 2 })
    const before = await calibration()
    const rejected = await ok<Chantier>('POST', `/drafts/${drop.record.id}/reject`, { reason: 'Du démarchage, pas un chantier' })
    expect(rejected).toMatchObject({ status: 'rejected', statusReason: 'Du démarchage, pas un chantier' })
    expect((await calibration()).rejectedJobs - before.rejectedJobs).toBe(1)
    const again = await api('POST', `/drafts/${drop.record.id}/promote`, { projectId: a.project.id, jobs: [] })
    expect([again.status, again.json.data?.code]).toEqual([409, 'not_draft'])
  })

  async function calibration(): Promise<{ rejectedJobs: number }> {
    const response = await fetch(`${hub.url}/api/atlas/calibration`, { headers: { cookie: cookies.operator } })
    const body = await response.json() as { live: { totals: { rejectedJobs: number } } }
    return body.live.totals
  }

  it('answers bad input with a 400 or 409 and its code, writing nothing', async () => {
    const a = await site('Site bad A')
    const b = await site('Site bad B')
    const projects = await total('/projects')
    const tasks = await total('/tasks')

    const unknownStatus = await api('POST', `/tasks/${a.task.id}/transition`, { to: 'finished' })
    expect([unknownStatus.status, unknownStatus.json.data?.code]).toEqual([400, 'bad_input'])
    expect((await api('GET', '/tasks?status=finished')).json.data?.code).toBe('bad_input')

    const crossProject = await api('POST', '/tasks', { jobId: b.job.id, projectId: a.project.id, title: 'Égarée' })
    expect([crossProject.status, crossProject.json.data?.code]).toEqual([400, 'cross_project'])
    const crossMove = await api('PATCH', `/tasks/${a.task.id}`, { jobId: b.job.id })
    expect([crossMove.status, crossMove.json.data?.code]).toEqual([400, 'cross_project'])

    const long = 'x'.repeat(10_000)
    for (const [path, body] of [['/projects', { name: long }], ['/tasks', { jobId: a.job.id, title: long }], ['/chantiers', { projectId: a.project.id, title: long }]] as const) {
      const refused = await api('POST', path, body)
      expect([refused.status, refused.json.data?.code], path).toEqual([400, 'too_long'])
      expect(refused.json.data?.field).toBe(path === '/projects' ? 'name' : 'title')
    }

    const ghostAgent = await api('POST', `/tasks/${a.task.id}/assign`, { owner: { kind: 'agent', codename: 'nobody-here' } })
    expect([ghostAgent.status, ghostAgent.json.data?.code]).toEqual([400, 'unknown_owner'])
    const ghostUser = await api('POST', '/tasks', { jobId: a.job.id, title: 'Sans maître', owner: { kind: 'user', id: '00000000-0000-4000-8000-000000000000' } })
    expect([ghostUser.status, ghostUser.json.data?.code]).toEqual([400, 'unknown_owner'])
    const badOwner = await api('POST', `/tasks/${a.task.id}/assign`, { owner: { kind: 'robot', name: 'x' } })
    expect([badOwner.status, badOwner.json.data?.code]).toEqual([400, 'bad_input'])

    const illegal = await api('POST', `/tasks/${a.task.id}/transition`, { to: 'done' })
    expect(illegal.status).toBe(409)
    expect(illegal.json.data).toEqual({ code: 'illegal_transition', message: expect.any(String), entity: 'task', from: 'todo', to: 'done', allowed: ['in_progress', 'blocked', 'cancelled'] })

    const openChantiers = await api('DELETE', `/projects/${a.project.id}`)
    expect([openChantiers.status, openChantiers.json.data?.code, openChantiers.json.data?.open]).toEqual([409, 'has_open_children', 1])

    const missing = await api('POST', '/tasks', { jobId: '00000000-0000-4000-8000-000000000000', title: 'Orpheline' })
    expect([missing.status, missing.json.data?.code]).toEqual([404, 'not_found'])
    const badId = await api('GET', '/tasks/not-a-uuid')
    expect([badId.status, badId.json.data?.code]).toEqual([400, 'bad_input'])

    // Nothing was written by any of them.
    expect(await total('/projects')).toBe(projects)
    expect(await total('/tasks')).toBe(tasks)
    const task = await ok<Task>('GET', `/tasks/${a.task.id}`)
    expect(task).toMatchObject({ status: 'todo', owner: null, jobId: a.job.id })
    expect(await ok<Project>('GET', `/projects/${a.project.id}`)).toMatchObject({ openChantiers: 1 })
  })

  it('acts on the registries and refuses what a record\'s status does not allow', async () => {
    const question = await recordFromMessage(database.db, 'question', { subject: 'Combien coûte un audit ?' })
    const answered = await ok<{ status: string, resolution: string }>('POST', `/registries/questions/${question.record.id}/answer`, { answer: 'Deux jours environ.' })
    expect(answered).toMatchObject({ status: 'answered', resolution: 'Deux jours environ.' })
    const twice = await api('POST', `/registries/questions/${question.record.id}/cancel`, { reason: 'trop tard' })
    expect([twice.status, twice.json.data?.code]).toEqual([409, 'illegal_transition'])
    const wrongKind = await api('POST', `/registries/runs/${question.record.id}/answer`, { answer: 'x' })
    expect(wrongKind.status).toBe(404)
    const detail = await ok<{ record: { status: string }, allowedActions: string[], timeline: Array<{ kind: string }> }>('GET', `/registries/questions/${question.record.id}`)
    expect(detail).toMatchObject({ record: { status: 'answered' }, allowedActions: [] })
    expect(detail.timeline.map(i => i.kind)).toEqual(expect.arrayContaining(['message', 'transition']))
    const list = await ok<Page<{ id: string }>>('GET', '/registries/questions?status=answered')
    expect(list.items.map(r => r.id)).toContain(question.record.id)
  })

  it('shows a viewer the board and refuses the viewer every write', async () => {
    const a = await site('Site viewer')
    const board = await api<Board>('GET', `/projects/${a.project.id}/board`, undefined, 'viewer')
    expect(board.status).toBe(200)
    expect(board.json.columns.find(c => c.status === 'todo')!.tasks.map(t => t.id)).toEqual([a.task.id])
    for (const [method, path, body] of [
      ['POST', `/tasks/${a.task.id}/transition`, { to: 'in_progress' }],
      ['POST', '/projects', { name: 'Refusé' }],
      ['PATCH', `/tasks/${a.task.id}`, { title: 'Refusé' }],
      ['DELETE', `/projects/${a.project.id}`, undefined],
    ] as const) {
      const refused = await api(method, path, body, 'viewer')
      expect([refused.status, refused.json.data?.code], `${method} ${path}`).toEqual([403, 'forbidden'])
    }
    expect(await ok<Task>('GET', `/tasks/${a.task.id}`)).toMatchObject({ status: 'todo', title: 'Accueil' })
  })
})
