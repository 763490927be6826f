// Custom agents' sharing, drafts and studio policy through the built hub (issue 21 Deliver 6,
// 8, P3): a level too low is 403 with data.code share_level_too_low (use cannot edit, edit
// cannot change the access, full can); any level opens the agent's runs (its activity); a
// viewer holding `full` still makes no WRITE run; revoking answers 404 on the next request.
// The chat's draft_custom_agent stores a draft the person saves with only the tools they
// confirmed (400 unconfirmed_tools otherwise); a draft is its person's only. Only a founder
// sets the studio policy.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let cookies: Record<Who, string>
const VIEWER = 'viewer@studio.test'
const plan = (text: string, steps: unknown[]) => `${text}\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1' } })
  cookies = await signInEveryRole(hub)
}, 240_000)

afterAll(async () => {
  await hub?.interrupt()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

async function call(method: string, path: string, who: Who | null, body?: unknown): Promise<{ status: number, json: Json }> {
  const response = await fetch(`${hub.url}/api${path}`, {
    method,
    headers: { ...(who ? { cookie: cookies[who] } : {}), ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

const settings = (page: Json, change: Record<string, unknown> = {}) => ({
  nickname: page.agent.nickname, description: page.agent.description, allowlist: page.agent.allowlist, model: page.agent.model,
  canDelegate: page.agent.canDelegate, maxDepth: page.agent.maxDepth, runsPerHour: page.agent.runsPerHour, ...change,
})

it('shares an agent by level: use cannot edit, edit cannot change the access, full can; a viewer\'s run still only reads; revoking is immediate', async () => {
  const created = await call('POST', '/agents/custom', 'operator', { codename: 'http-shared', nickname: 'Shared', allowlist: { tools: ['recall_memory', 'create_vault_inbox_note'] } })
  expect(created.status).toBe(200)
  expect((await call('GET', '/agents/custom/http-shared', 'viewer')).status).toBe(404)
  expect((await call('POST', '/agents/custom/http-shared/shares', 'viewer', { email: VIEWER, level: 'full' })).status).toBe(404)
  expect((await call('POST', '/agents/custom/http-shared/shares', 'operator', { email: VIEWER, level: 'owner' })).json.data).toMatchObject({ code: 'bad_input' })
  expect((await call('POST', '/agents/custom/http-shared/shares', 'operator', { email: 'nobody@studio.test', level: 'use' })).json.data).toMatchObject({ code: 'unknown_person' })

  const ownersRun = await call('POST', '/agents/custom/http-shared/runs', 'operator', { request: 'What do you watch?' })
  expect(ownersRun.status).toBe(200)
  expect((await call('GET', `/agents/runs/${ownersRun.json.run.id}`, 'viewer')).status).toBe(404)
  expect((await call('POST', '/agents/custom/http-shared/shares', 'operator', { email: VIEWER, level: 'use' })).json.shares).toEqual([expect.objectContaining({ email: VIEWER, level: 'use' })])
  // `use` sees the agent's activity: the owner's run opens for the sharee, step by step.
  expect((await call('GET', `/agents/runs/${ownersRun.json.run.id}`, 'viewer')).json.run).toMatchObject({ id: ownersRun.json.run.id, agent: 'http-shared' })
  const listed = await call('GET', '/agents/custom', 'viewer')
  expect(listed.json.agents).toEqual([expect.objectContaining({ codename: 'http-shared', level: 'use', shared: true })])
  const page = (await call('GET', '/agents/custom/http-shared', 'viewer')).json
  expect(page).toMatchObject({ level: 'use', shares: [] })
  const useEdit = await call('PUT', '/agents/custom/http-shared', 'viewer', settings(page, { description: 'by use' }))
  expect(useEdit.status).toBe(403)
  expect(useEdit.json.data).toMatchObject({ code: 'share_level_too_low', level: 'use', needed: 'edit' })

  await call('POST', '/agents/custom/http-shared/shares', 'operator', { email: VIEWER, level: 'edit' })
  expect((await call('PUT', '/agents/custom/http-shared', 'viewer', settings(page, { description: 'by edit' }))).json.agent.description).toBe('by edit')
  const widen = await call('PUT', '/agents/custom/http-shared', 'viewer', settings(page, { allowlist: { ...page.agent.allowlist, tools: ['recall_memory', 'create_vault_inbox_note', 'create_work_item'] } }))
  expect(widen.status).toBe(403)
  expect(widen.json.data).toMatchObject({ code: 'share_level_too_low', needed: 'full' })
  expect((await call('POST', '/agents/custom/http-shared/shares', 'viewer', { email: 'operator@studio.test', level: 'use' })).status).toBe(403)

  await call('POST', '/agents/custom/http-shared/shares', 'operator', { email: VIEWER, level: 'full' })
  const full = await call('PUT', '/agents/custom/http-shared', 'viewer', settings(page, { allowlist: { ...page.agent.allowlist, tools: ['recall_memory', 'create_vault_inbox_note', 'search_worksites'] } }))
  expect(full.status).toBe(200)
  expect(full.json.agent.allowlist.tools).toContain('search_worksites')

  // The viewer holds `full` but is a viewer: their run of the agent offers and allows READ tools only.
  const run = await call('POST', '/agents/custom/http-shared/runs', 'viewer', { request: plan('Note it.', [{ call: 'create_vault_inbox_note', input: { name: 'x.md', body: 'x' } }, { answer: 'Done.' }]) })
  expect(run.status).toBe(200)
  expect(run.json.run.context.allowlist).toEqual(['recall_memory', 'search_worksites'])
  expect(run.json.steps.find((step: Json) => step.tool === 'create_vault_inbox_note')).toMatchObject({ status: 'denied' })

  expect((await call('DELETE', '/agents/custom/http-shared/shares', 'operator', { email: VIEWER })).json.shares).toEqual([])
  expect((await call('GET', '/agents/custom/http-shared', 'viewer')).status).toBe(404)
  expect((await call('GET', `/agents/runs/${ownersRun.json.run.id}`, 'viewer')).status).toBe(404)
  expect((await call('POST', '/agents/custom/http-shared/runs', 'viewer', { request: 'hello' })).status).toBe(404)
  expect((await call('GET', '/agents/custom', 'viewer')).json.agents).toEqual([])
})

it('drafts an agent from the chat, reviews and saves it with only the confirmed tools', async () => {
  const chat = await call('POST', '/agents/chat', 'operator', { request: plan('Make me an agent that watches invoices', [{ call: 'draft_custom_agent', input: {
    codename: 'http-drafted', nickname: 'Drafted', description: 'Watches invoices.', instructions: 'Read the invoices.', triggers: [{ kind: 'mention' }], tools: ['search_atlas_messages', 'create_work_item', 'no_such_tool'],
  } }, { answer: 'Drafted.' }]) })
  expect(chat.status).toBe(200)
  await expect.poll(async () => (await call('GET', `/agents/runs/${chat.json.runId}`, 'operator')).json.run.status, { timeout: 20_000 }).toBe('succeeded')
  const drafts = (await call('GET', '/agents/custom-drafts', 'operator')).json.drafts
  expect(drafts).toEqual([expect.objectContaining({ proposal: expect.objectContaining({ codename: 'http-drafted', suggestedTools: ['search_atlas_messages', 'create_work_item'] }) })])
  const id = drafts[0].id
  expect((await call('GET', '/agents/custom/http-drafted', 'operator')).status).toBe(404)
  expect((await call('GET', `/agents/custom-drafts/${id}`, 'viewer')).status).toBe(404)
  const review = (await call('GET', `/agents/custom-drafts/${id}`, 'operator')).json
  expect(review.draft.proposal.refusedTools).toEqual([{ name: 'no_such_tool', reason: 'no such tool' }])
  expect(review.tools.map((tool: Json) => tool.name)).not.toContain('draft_custom_agent')

  const form = { codename: 'http-drafted', nickname: 'Drafted', description: 'Watches invoices (edited).', instructions: 'Read the invoices.', triggers: [{ kind: 'mention' }] }
  const unconfirmed = await call('POST', `/agents/custom-drafts/${id}/save`, 'operator', { ...form, allowlist: { tools: ['search_atlas_messages', 'create_work_item'] }, confirmTools: ['search_atlas_messages'] })
  expect(unconfirmed.status).toBe(400)
  expect(unconfirmed.json.data).toMatchObject({ code: 'unconfirmed_tools', tools: ['create_work_item'] })
  expect((await call('POST', `/agents/custom-drafts/${id}/save`, 'operator', { ...form, allowlist: { tools: [] } })).json.data).toMatchObject({ code: 'bad_input' })
  const saved = await call('POST', `/agents/custom-drafts/${id}/save`, 'operator', { ...form, allowlist: { tools: ['search_atlas_messages'] }, confirmTools: ['search_atlas_messages'] })
  expect(saved.status).toBe(200)
  expect(saved.json.agent).toMatchObject({ codename: 'http-drafted', version: 1, description: 'Watches invoices (edited).', allowlist: expect.objectContaining({ tools: ['search_atlas_messages'] }) })
  expect(saved.json.agent.instructionId).toEqual(expect.any(String))
  expect((await call('GET', '/agents/custom-drafts', 'operator')).json.drafts).toEqual([])
  expect((await call('POST', `/agents/custom-drafts/${id}/save`, 'operator', { ...form, codename: 'http-drafted-2', allowlist: { tools: [] }, confirmTools: [] })).status).toBe(409)
})

it('lets only a founder set the studio policy, which every custom run then follows', async () => {
  expect((await call('PUT', '/agents/studio-policy', 'operator', { tools: ['recall_memory'] })).json.data).toMatchObject({ code: 'forbidden', requiredRole: 'founder' })
  expect((await call('PUT', '/agents/studio-policy', 'founder', { tools: ['nope'] })).json.data).toMatchObject({ code: 'unknown_tools' })
  const saved = await call('PUT', '/agents/studio-policy', 'founder', { tools: ['recall_memory'] })
  expect(saved.json).toMatchObject({ tools: ['recall_memory'], updatedBy: 'founder@studio.test' })
  expect((await call('GET', '/agents/studio-policy', 'viewer')).json).toMatchObject({ tools: ['recall_memory'], canEdit: false })
  const run = await call('POST', '/agents/custom/http-shared/runs', 'operator', { request: plan('Search.', [{ call: 'search_worksites', input: { query: 'x' } }, { answer: 'Done.' }]) })
  expect(run.json.run.context.allowlist).toEqual(['recall_memory'])
  expect(run.json.steps.find((step: Json) => step.tool === 'search_worksites')).toMatchObject({ status: 'denied' })
  expect((await call('GET', '/agents/custom/http-shared', 'operator')).json.studioTools).toEqual(['recall_memory'])
  expect((await call('PUT', '/agents/studio-policy', 'founder', { tools: null })).json.tools).toBeNull()
})
