// The chat panel's routes through the built hub (issue 19, Deliver 6): a turn answers at once
// with its run and conversation, the run's stream (server-sent events) sends its steps as they
// are written and ends with the answer and the vault note it read; a second turn continues the
// conversation; another person's conversation and run stream are a 404 (and continuing it
// writes nothing); bad input is a 400 with data.code; no session is a 401.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { agentRuns } from '#db/schema/agent-runs'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let database: Database
let cookies: Record<Who, string>
const vaultDir = mkdtempSync(join(tmpdir(), 'agent-chat-vault-'))

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1', VAULT_DIR: vaultDir } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
  mkdirSync(join(vaultDir, 'permanent'), { recursive: true })
  writeFileSync(join(vaultDir, 'permanent', 'webhook-retries.md'), '---\ntitle: Webhook retries\n---\n\n# Webhook retries\n\nWebhook retries are capped at five attempts, with exponential backoff.\n')
  await indexNotes({ db: database.db, vaultDir })
  await syncVectors({ db: database.db, embedder: offlineEmbedder(database.db), reflexDir: join(vaultDir, '..', 'no-reflex') }, { sources: ['note'] })
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
  rmSync(vaultDir, { recursive: true, force: true })
})

async function call<T = Record<string, unknown>>(
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

interface SseEvent { event: string, data: string }
/** Reads a run's stream to its end (the server closes it after `done`). */
async function readStream(runId: string, who: Who): Promise<SseEvent[]> {
  const response = await fetch(`${hub.url}/api/agents/runs/${runId}/stream`, { headers: { cookie: cookies[who], accept: 'text/event-stream' }, signal: AbortSignal.timeout(30_000) })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/event-stream')
  const text = await response.text()
  return text.split('\n\n').filter(block => block.includes('event:')).map((block) => {
    const lines = block.split('\n')
    return { event: lines.find(line => line.startsWith('event:'))!.slice(6).trim(), data: lines.filter(line => line.startsWith('data:')).map(line => line.slice(5).trim()).join('\n') }
  })
}

const runCount = async () => Number((await database.db.select({ n: sql<number>`count(*)::int` }).from(agentRuns))[0]!.n)

describe('the agent chat routes', () => {
  let conversationId = ''
  let runId = ''

  it('starts a turn at once and streams its steps, then the answer with the note it read', async () => {
    const started = await call<{ runId: string, conversationId: string }>('POST', '/chat', 'operator', { request: 'How many times are webhook retries attempted?', page: { path: '/hub/worksites', title: 'Worksites' } })
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json.runId).toMatch(/^[0-9a-f-]{36}$/)
    expect(started.json.conversationId).toMatch(/^[0-9a-f-]{36}$/)
    runId = started.json.runId
    conversationId = started.json.conversationId

    const events = await readStream(runId, 'operator')
    const steps = events.filter(event => event.event === 'step').map(event => JSON.parse(event.data) as { seq: number, kind: string, tool: string | null })
    // The skill router's decision comes first: every run of the hub's engine records it (issue 21).
    expect(steps.map(step => step.seq)).toEqual([1, 2, 3, 4])
    expect(steps[0]).toMatchObject({ kind: 'skills' })
    expect(steps[2]).toMatchObject({ kind: 'tool', tool: 'recall_memory' })
    expect(events.filter(event => event.event === 'status').map(event => event.data).at(-1)).toBe('succeeded')
    expect(events.at(-1)!.event).toBe('done')
    const done = JSON.parse(events.at(-1)!.data) as {
      run: { status: string, answer: string, surface: string, conversationId: string }
      sources: Array<{ kind: string, ref: string }>
    }
    expect(done.run).toMatchObject({ status: 'succeeded', surface: 'hub_chat', conversationId })
    expect(done.run.answer).toContain('capped at five attempts')
    expect(done.sources).toContainEqual(expect.objectContaining({ kind: 'note', ref: 'permanent/webhook-retries.md' }))

    // A finished run's stream sends everything at once and closes.
    const again = await readStream(runId, 'operator')
    expect(again.map(event => event.event)).toEqual(['step', 'step', 'step', 'step', 'status', 'done'])
  })

  it('continues the conversation and lists it for its person', async () => {
    const second = await call<{ runId: string, conversationId: string }>('POST', '/chat', 'operator', { request: 'And the backoff?', conversationId })
    expect(second.status).toBe(200)
    expect(second.json.conversationId).toBe(conversationId)
    await readStream(second.json.runId, 'operator')
    const turns = await call<{ turns: Array<{ runId: string, request: string }> }>('GET', `/chat/conversations/${conversationId}`, 'operator')
    expect(turns.status).toBe(200)
    expect(turns.json.turns.map(turn => turn.runId)).toEqual([runId, second.json.runId])
    const listed = await call<{ conversations: Array<{ id: string, turns: number }> }>('GET', '/chat/conversations', 'operator')
    expect(listed.json.conversations).toContainEqual(expect.objectContaining({ id: conversationId, turns: 2 }))
  })

  it('hides a conversation and its runs\' streams from another person, writing nothing', async () => {
    const before = await runCount()
    for (const who of ['viewer', 'founder'] as const) {
      const read = await call('GET', `/chat/conversations/${conversationId}`, who)
      expect(read.status).toBe(404)
      expect(read.json.data).toMatchObject({ code: 'not_found' })
      const cont = await call('POST', '/chat', who, { request: 'What did they ask?', conversationId })
      expect(cont.status).toBe(404)
      const listed = await call<{ conversations: Array<{ id: string }> }>('GET', '/chat/conversations', who)
      expect(listed.json.conversations.map(item => item.id)).not.toContain(conversationId)
    }
    const stream = await fetch(`${hub.url}/api/agents/runs/${runId}/stream`, { headers: { cookie: cookies.viewer } })
    expect(stream.status).toBe(404)
    expect(((await stream.json()) as { data: { code: string } }).data.code).toBe('not_found')
    expect(await runCount()).toBe(before)
    expect((await database.db.select().from(agentRuns).where(eq(agentRuns.conversationId, conversationId))).map(run => run.actingEmail)).toEqual(['operator@studio.test', 'operator@studio.test'])
  })

  it('answers bad input with a 400 and data.code, no session with a 401, and writes nothing', async () => {
    const before = await runCount()
    for (const body of [{}, { request: '   ' }, { request: 'hi', extra: 1 }, { request: 'hi', conversationId: 'nope' }, { request: 'hi', page: { path: 'javascript:alert(1)' } }, { request: 'x'.repeat(20_001) }]) {
      const refused = await call('POST', '/chat', 'operator', body)
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(refused.json.data).toMatchObject({ code: 'bad_input' })
    }
    expect((await call('GET', '/chat/conversations/not-a-uuid', 'operator')).status).toBe(400)
    expect((await fetch(`${hub.url}/api/agents/runs/not-a-uuid/stream`, { headers: { cookie: cookies.operator } })).status).toBe(400)
    expect((await call('POST', '/chat', null, { request: 'hi' })).status).toBe(401)
    expect((await fetch(`${hub.url}/api/agents/runs/${runId}/stream`)).status).toBe(401)
    expect(await runCount()).toBe(before)
  })

  it('lets a viewer ask their own agent from the chat (it only reads)', async () => {
    const started = await call<{ runId: string }>('POST', '/chat', 'viewer', { request: 'What do we know about webhook retries?' })
    expect(started.status).toBe(200)
    const events = await readStream(started.json.runId, 'viewer')
    const done = JSON.parse(events.at(-1)!.data) as { run: { status: string, regime: string, actingEmail: string } }
    expect(done.run).toMatchObject({ status: 'succeeded', regime: 'user', actingEmail: 'viewer@studio.test' })
  })
})
