// The agent engine through the built hub (issue 19): the operator's personal agent runs the
// offline scripted plan over HTTP (recall a scar, read a note, create a work item, ask to
// start a spawn), the run pauses, the operator approves on the approvals route, the spawn is
// queued, the work item is undone from its step; a viewer's agent is refused the write;
// bad input is a 400 with data.code and writes nothing; someone else's run is a 404.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'
import { workChantiers } from '#db/schema/work'
import { workTasks } from '#db/schema/worksites'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

interface Step {
  id: number
  seq: number
  kind: string
  tool: string | null
  toolClass: string | null
  status: string
  error: string | null
  write: { id: string, undoable: boolean } | null
  undoneBy: string | null
  sources: Array<{ kind: string, ref: string, title: string }>
}
interface View {
  run: {
    id: string
    status: string
    agent: string
    regime: string
    provider: string | null
    model: string | null
    tokensIn: number
    tokensOut: number
    costUsd: number
    iterations: number
    answer: string | null
  }
  steps: Step[]
  approvals: Array<{ id: string, status: string, tool: string, payload: Record<string, unknown>, askedOf: string }>
  sources: Array<{ kind: string, ref: string, title: string }>
}

let hub: Hub
let database: Database
let cookies: Record<'founder' | 'operator' | 'viewer', string>
const vaultDir = mkdtempSync(join(tmpdir(), 'agent-runs-vault-'))
let jobId = ''
let taskId = ''

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1', VAULT_DIR: vaultDir } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
  const { db } = database
  await db.insert(learnLessons).values({ title: 'Webhook retried forever', description: 'A webhook without a retry cap hammered the client API.', checkAdded: 'Cap webhook retries', importance: 5, agent: null })
  await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: join(vaultDir, '..', 'no-reflex') }, { sources: ['scar'] })
  mkdirSync(join(vaultDir, 'permanent'), { recursive: true })
  writeFileSync(join(vaultDir, 'permanent', 'webhooks.md'), '---\ntitle: Webhooks\n---\n\n# Webhooks\n\nRetries are capped at five.\n')
  await indexNotes({ db, vaultDir })
  const site = await worksite(db, 1)
  jobId = site.job.id
  taskId = site.tasks[0]!.id
  const [message] = await db.insert(atlasMessages).values({ dedupeKey: 'agent-runs-http', rawSha256: '0'.repeat(64), rawSize: 10, mailbox: 'INBOX', subject: 'Webhooks' } as typeof atlasMessages.$inferInsert).returning({ id: atlasMessages.id })
  await db.update(workChantiers).set({ sourceMessageId: message!.id }).where(eq(workChantiers.id, site.chantier.id))
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
  rmSync(vaultDir, { recursive: true, force: true })
})

async function api<T = View>(method: string, path: string, body?: unknown, who: keyof typeof cookies = 'operator'): Promise<{ status: number, json: T & { data?: Record<string, unknown> } }> {
  const response = await fetch(`${hub.url}/api/agents${path}`, {
    method,
    headers: { cookie: cookies[who], ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  return { status: response.status, json: await response.json() as T & { data?: Record<string, unknown> } }
}
const plan = (steps: unknown[]) => `Handle the webhook retries.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describe('agent runs through the hub', () => {
  it('runs the scripted plan: paused for the spawn, approved by the operator, the spawn queued, the work item undone', async () => {
    const started = await api('POST', '/runs', { request: plan([
      { call: 'recall_memory', input: { query: 'webhook retry cap' } },
      { call: 'read_vault_note', input: { path: 'permanent/webhooks.md' } },
      { call: 'create_work_item', input: { jobId, title: 'Cap the webhook retries' } },
      { call: 'start_spawn', input: { taskId } },
      { answer: 'Done: task created, spawn queued.' },
    ]) })
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const { run, approvals } = started.json
    expect(run).toMatchObject({ status: 'awaiting_approval', agent: 'personal:operator@studio.test', regime: 'user' })
    expect(approvals).toMatchObject([{ status: 'pending', tool: 'start_spawn', payload: { taskId }, askedOf: 'operator@studio.test' }])
    expect(await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, taskId))).toEqual([])

    const viewerDecides = await api('POST', `/runs/${run.id}/approvals/${approvals[0]!.id}`, { decision: 'approve' }, 'viewer')
    expect([viewerDecides.status, viewerDecides.json.data?.code]).toEqual([403, 'forbidden'])
    const bad = await api('POST', `/runs/${run.id}/approvals/${approvals[0]!.id}`, { decision: 'maybe' })
    expect([bad.status, bad.json.data?.code]).toEqual([400, 'bad_input'])

    const approved = await api('POST', `/runs/${run.id}/approvals/${approvals[0]!.id}`, { decision: 'approve' })
    expect(approved.status, JSON.stringify(approved.json)).toBe(200)
    expect(approved.json.run).toMatchObject({ status: 'succeeded', provider: 'offline', model: 'offline-rules-v1', tokensIn: 0, tokensOut: 0, costUsd: 0, iterations: 5, answer: '[offline] Done: task created, spawn queued.' })
    expect(approved.json.sources).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'scar', title: 'Webhook retried forever' }), { kind: 'note', ref: 'permanent/webhooks.md', title: 'Webhooks' }]))
    const [spawn] = await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, taskId))
    expect(spawn!.status).toBe('queued')
    const again = await api('POST', `/runs/${run.id}/approvals/${approvals[0]!.id}`, { decision: 'approve' })
    expect([again.status, again.json.data?.code]).toEqual([409, 'approval_not_pending'])

    const write = approved.json.steps.find(step => step.tool === 'create_work_item')!
    expect(await database.db.select().from(workTasks).where(eq(workTasks.id, write.write!.id))).toHaveLength(1)
    const undone = await api('POST', `/runs/${run.id}/steps/${write.id}/undo`)
    expect(undone.status, JSON.stringify(undone.json)).toBe(200)
    expect(undone.json.steps.find(step => step.id === write.id)!.undoneBy).toBe('operator@studio.test')
    expect(await database.db.select().from(workTasks).where(eq(workTasks.id, write.write!.id))).toEqual([])
    const twice = await api('POST', `/runs/${run.id}/steps/${write.id}/undo`)
    expect([twice.status, twice.json.data?.code]).toEqual([409, 'already_undone'])

    const read = await api('GET', `/runs/${run.id}`)
    expect(read.json.steps.filter(step => step.kind === 'model')).toHaveLength(5)
    expect((await api('GET', `/runs/${run.id}`, undefined, 'founder')).status).toBe(200)
    const stranger = await api('GET', `/runs/${run.id}`, undefined, 'viewer')
    expect([stranger.status, stranger.json.data?.code]).toEqual([404, 'not_found'])
    const list = await api<{ items: Array<{ id: string }>, usage: { runs: number } }>('GET', '/runs')
    expect(list.json.items.map(item => item.id)).toContain(run.id)
    expect(list.json.usage.runs).toBeGreaterThanOrEqual(1)
  })

  it('a viewer may ask their agent, which reads but is refused every write', async () => {
    const before = await database.db.execute<{ n: string }>(sql`select count(*) as n from work_tasks`)
    const asked = await api('POST', '/runs', { request: plan([{ call: 'create_work_item', input: { jobId, title: 'From a viewer' } }, { call: 'recall_memory', input: { query: 'webhook' } }, { answer: 'ok' }]) }, 'viewer')
    expect(asked.status, JSON.stringify(asked.json)).toBe(200)
    expect(asked.json.run.status).toBe('succeeded')
    expect(asked.json.steps.filter(step => step.kind === 'tool').map(step => [step.tool, step.status])).toEqual([['create_work_item', 'denied'], ['recall_memory', 'ok']])
    const after = await database.db.execute<{ n: string }>(sql`select count(*) as n from work_tasks`)
    expect(after[0]!.n).toBe(before[0]!.n)
    const undo = await api('POST', `/runs/${asked.json.run.id}/steps/1/undo`, {}, 'viewer')
    expect(undo.status).toBe(403)
  })

  it('answers bad input with a 400 and data.code, writing no run', async () => {
    const count = async () => Number((await database.db.execute<{ n: string }>(sql`select count(*) as n from agent_runs`))[0]!.n)
    const before = await count()
    for (const body of [{}, { request: '   ' }, { request: 'x'.repeat(20_001) }, { request: 'hi', extra: 1 }, { request: 'hi', budget: { iterations: 0 } }]) {
      const response = await api('POST', '/runs', body)
      expect([response.status, response.json.data?.code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'bad_input'])
    }
    expect((await api('GET', '/runs/not-a-uuid')).json.data?.code).toBe('bad_input')
    expect((await api('GET', '/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect(await count()).toBe(before)
  })

  it('grants and revokes a standing approval of the operator\'s own agent', async () => {
    const granted = await api<{ agent: string, tool: string }>('POST', '/standing-approvals', { tool: 'start_spawn' })
    expect(granted.status, JSON.stringify(granted.json)).toBe(200)
    expect(granted.json).toMatchObject({ agent: 'personal:operator@studio.test', tool: 'start_spawn' })
    expect((await api('POST', '/standing-approvals', { tool: 'recall_memory' })).json.data?.code).toBe('not_external_write')
    expect((await api('POST', '/standing-approvals/revoke', { tool: 'start_spawn' })).status).toBe(200)
    expect((await api('POST', '/standing-approvals/revoke', { tool: 'start_spawn' })).json.data?.code).toBe('not_granted')
    const listed = await api<{ items: Array<{ revokedBy: string | null }> }>('GET', '/standing-approvals')
    expect(listed.json.items).toMatchObject([{ revokedBy: 'operator@studio.test' }])
  })
})
