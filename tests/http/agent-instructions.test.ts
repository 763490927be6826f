// Instructions and models by surface through the built hub (issue 19, Deliver 7 and 8): a
// person's documents are theirs alone (404 to anyone else, founders included), viewers write
// their own; every save is a version; a chat turn's run names the version it read; the agent's
// proposal is applied (409 once the document moved on) or rejected through the routes. Only a
// founder sets a surface's model list (403 otherwise); a person's choice outside the list is a
// 400; a run naming a model the surface does not allow is a 400, writing no run; a withdrawn
// choice runs on Auto and the run says so. Bad bodies are 400 with data.code; no session, 401.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let database: Database
let cookies: Record<Who, string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1' } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
})

interface Doc { id: string, active: boolean }
interface Version { version: number, body: string }
interface Proposal { id: string, status: string, baseVersion: number, runId: string, diff: string }
interface RunRow {
  status: string
  provider: string
  modelNote: string | null
  promptLayers: Array<{ layer: string, sources: string[], text: string }>
}
/** Every shape these routes answer, loosely: each test reads the fields its route sends. */
interface Reply {
  statusCode: number
  data: { code?: string }
  runId: string
  document: Doc
  documents: Doc[]
  versions: Version[]
  proposals: Proposal[]
  run: RunRow
  models: Array<{ provider: string }>
  surfaces: { hub_chat: unknown[] }
  known: Record<string, string[]>
  canEdit: boolean
  choice: unknown
}

async function call<T = Reply>(
  method: string,
  path: string,
  who: Who | null,
  body?: unknown,
): Promise<{ status: number, json: T & { data?: Record<string, unknown> } }> {
  const response = await fetch(`${hub.url}/api/agents${path}`, {
    method,
    headers: { ...(who ? { cookie: cookies[who] } : {}), ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  return { status: response.status, json: (await response.json()) as T & { data?: Record<string, unknown> } }
}

/** Waits for a chat run to end (the route answers before the engine drives it). */
async function settled(runId: string): Promise<Reply> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { json } = await call('GET', `/runs/${runId}`, 'operator')
    if (json.run && json.run.status !== 'running') return json
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  throw new Error(`run ${runId} did not end`)
}

const plan = (steps: unknown[]) => `Tidy my instructions.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describe('instructions', () => {
  let docId = ''

  it('creates, saves versions and activates the person\'s own documents only', async () => {
    expect((await call('GET', '/instructions', null)).status).toBe(401)
    const created = await call('POST', '/instructions', 'operator', { title: 'How I work', body: 'Answer in French.\n' })
    expect(created.status).toBe(200)
    docId = created.json.document.id
    expect(created.json.document.active).toBe(true)
    const saved = await call('POST', `/instructions/${docId}/versions`, 'operator', { body: 'Answer in French.\nCite sources.\n', baseVersion: 1, note: 'sources' })
    expect(saved.json.versions.map(v => v.version)).toEqual([2, 1])
    expect((await call('POST', `/instructions/${docId}/versions`, 'operator', { body: 'stale', baseVersion: 1 })).json).toMatchObject({ statusCode: 409, data: { code: 'version_conflict' } })
    // Bad bodies: 400 with a code.
    for (const body of [{}, { title: '', body: 'x' }, { title: 'x', body: 'y'.repeat(40_001) }, { title: 'x', body: 'y', extra: true }]) {
      const bad = await call('POST', '/instructions', 'operator', body)
      expect(bad.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(bad.json.data?.code).toBe('bad_input')
    }
    expect((await call('PATCH', `/instructions/${docId}`, 'operator', {})).status).toBe(400)
    expect((await call('GET', '/instructions/not-a-uuid', 'operator')).status).toBe(400)
    // Nobody else sees it — founders included.
    for (const who of ['founder', 'viewer'] as const) {
      expect((await call('GET', `/instructions/${docId}`, who)).status).toBe(404)
      expect((await call('POST', `/instructions/${docId}/versions`, who, { body: 'hijack' })).status).toBe(404)
      expect((await call('GET', '/instructions', who)).json.documents).toEqual([])
    }
    // A viewer writes their own.
    const mine = await call('POST', '/instructions', 'viewer', { title: 'Viewer notes', body: 'Be brief.' })
    expect(mine.status).toBe(200)
    const restored = await call('POST', `/instructions/${docId}/versions/1/restore`, 'operator')
    expect(restored.json.versions[0]).toMatchObject({ version: 3, body: 'Answer in French.\n' })
    const other = await call('POST', '/instructions', 'operator', { title: 'Second', body: 'Second text.' })
    expect(other.json.document.active).toBe(false)
    expect((await call('PATCH', `/instructions/${other.json.document.id}`, 'operator', { active: true })).json.document.active).toBe(true)
    expect((await call('PATCH', `/instructions/${docId}`, 'operator', { active: true })).json.document.active).toBe(true)
    const listed = (await call('GET', '/instructions', 'operator')).json.documents
    expect(listed.filter(doc => doc.active).map(doc => doc.id)).toEqual([docId])
  })

  it('gives the next chat run the latest version, and applies or rejects the agent\'s proposal', async () => {
    const turn = await call('POST', '/chat', 'operator', { request: 'Hello' })
    const view = await settled(turn.json.runId)
    const layer = view.run.promptLayers.find(l => l.layer === 'instructions')
    expect(layer).toMatchObject({ sources: [`instructions:${docId}@v3`], text: 'Answer in French.\n' })

    const proposing = await call('POST', '/chat', 'operator', { request: plan([{ call: 'propose_instruction_change', input: { body: 'Answer in French.\nBe kind.\n', reason: 'tone' } }, { answer: 'Proposed.' }]) })
    await settled(proposing.json.runId)
    const doc = (await call('GET', `/instructions/${docId}`, 'operator')).json
    const proposal = doc.proposals[0]!
    expect(proposal).toMatchObject({ status: 'pending', baseVersion: 3, runId: proposing.json.runId })
    expect(proposal.diff).toContain('+Be kind.')
    expect(doc.versions[0]!.version).toBe(3)
    expect((await call('POST', `/instructions/${docId}/proposals/${proposal.id}`, 'operator', { decision: 'maybe' })).status).toBe(400)
    expect((await call('POST', `/instructions/${docId}/proposals/${proposal.id}`, 'founder', { decision: 'apply' })).status).toBe(404)
    const applied = await call('POST', `/instructions/${docId}/proposals/${proposal.id}`, 'operator', { decision: 'apply' })
    expect(applied.json.versions[0]).toMatchObject({ version: 4, body: 'Answer in French.\nBe kind.\n' })
    expect((await call('POST', `/instructions/${docId}/proposals/${proposal.id}`, 'operator', { decision: 'reject' })).json).toMatchObject({ statusCode: 409, data: { code: 'already_decided' } })

    // A proposal made before the person saved again no longer applies.
    const stale = await call('POST', '/chat', 'operator', { request: plan([{ call: 'propose_instruction_change', input: { body: 'Other text.\n', reason: 'why not' } }, { answer: 'ok' }]) })
    await settled(stale.json.runId)
    const staleId = (await call('GET', `/instructions/${docId}`, 'operator')).json.proposals.find(p => p.status === 'pending')!.id
    await call('POST', `/instructions/${docId}/versions`, 'operator', { body: 'Moved on.\n' })
    expect((await call('POST', `/instructions/${docId}/proposals/${staleId}`, 'operator', { decision: 'apply' })).json).toMatchObject({ statusCode: 409, data: { code: 'version_conflict' } })
    expect((await call('POST', `/instructions/${docId}/proposals/${staleId}`, 'operator', { decision: 'reject' })).status).toBe(200)
  })
})

describe('models by surface', () => {
  const list = { models: [{ provider: 'mistral', model: 'mistral-large-latest' }, { provider: 'offline', model: 'offline-rules-v1' }, { provider: 'anthropic', model: 'claude-haiku-4-5' }] }

  it('lets only a founder set a surface\'s list; bad bodies are 400', async () => {
    expect((await call('PUT', '/models/hub_chat', 'operator', list)).status).toBe(403)
    expect((await call('PUT', '/models/hub_chat', 'viewer', list)).status).toBe(403)
    expect((await call('PUT', '/models/hub_chat', null, list)).status).toBe(401)
    for (const [surface, body] of [['nowhere', list], ['hub_chat', { models: [{ provider: 'voyage', model: 'voyage-3' }] }], ['hub_chat', { models: [{ provider: 'offline', model: 'a b' }] }], ['hub_chat', { models: [list.models[0], list.models[0]] }], ['hub_chat', {}]] as const) {
      const bad = await call('PUT', `/models/${surface}`, 'founder', body)
      expect(bad.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(bad.json.data?.code).toBe('bad_input')
    }
    const set = await call('PUT', '/models/hub_chat', 'founder', list)
    expect(set.status).toBe(200)
    expect(set.json.models.map(m => m.provider)).toEqual(['mistral', 'offline', 'anthropic'])
    const read = (await call('GET', '/models', 'viewer')).json
    expect(read).toMatchObject({ canEdit: false, choice: null })
    expect(read.surfaces.hub_chat).toHaveLength(3)
    expect(read.known.anthropic).toContain('claude-haiku-4-5')
    expect((await call('GET', '/models', 'founder')).json.canEdit).toBe(true)
  })

  it('keeps a person\'s allowed choice, refuses others, and falls back to Auto once it is withdrawn', async () => {
    expect((await call('PUT', '/model-choice', 'operator', { provider: 'openai', model: 'gpt-4o' })).json).toMatchObject({ statusCode: 400, data: { code: 'model_not_allowed' } })
    expect((await call('PUT', '/model-choice', 'operator', { provider: 'openai', model: null })).status).toBe(400)
    expect((await call('PUT', '/model-choice', 'operator', { provider: 'anthropic', model: 'claude-haiku-4-5' })).status).toBe(200)
    expect((await call('GET', '/models', 'operator')).json.choice).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' })

    // A run naming a model outside the list: 400, no run written.
    const count = async () => Number((await database.db.execute<{ n: number }>(sql`select count(*)::int as n from agent_runs`))[0]!.n)
    const before = await count()
    expect((await call('POST', '/runs', 'operator', { request: 'hello', model: { provider: 'openai', model: 'gpt-4o' } })).json).toMatchObject({ statusCode: 400, data: { code: 'model_not_allowed' } })
    expect(await count()).toBe(before)

    await call('PUT', '/models/hub_chat', 'founder', { models: [list.models[0], list.models[1], { ...list.models[2], enabled: false }] })
    const turn = await call('POST', '/chat', 'operator', { request: 'Hello after the withdrawal' })
    const view = await settled(turn.json.runId)
    expect(view.run).toMatchObject({ provider: 'offline', modelNote: 'model anthropic/claude-haiku-4-5 was withdrawn, Auto used' })
    await call('PUT', '/models/hub_chat', 'founder', { models: [] })
  })
})
