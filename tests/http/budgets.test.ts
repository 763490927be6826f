// Monthly budgets and the usage page through the built hub (issue 34, Deliver 7): only a
// founder sets a budget (bad input 400 bad_input, an unknown person 404); once the ledger
// shows the person past it, the custom agent's run route and the personal agent's both refuse
// with 429 data.code budget_exceeded and the reason, while a run on the offline (included)
// provider still goes; the notification links to /hub/usage; the usage report shows the
// budget reached; the runs and ledger CSVs download with formulas neutralised.
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { insertLedgerRows, type LedgerEntry } from '#layers/ai/core/ledger'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let database: Database
let cookies: Record<Who, string>
const OPERATOR = 'operator@studio.test'
const month = new Date().toISOString().slice(0, 7)

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1' } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub)
}, 240_000)

afterAll(async () => {
  await database?.close()
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

const premium = (over: Partial<LedgerEntry>): LedgerEntry => ({
  callId: randomUUID(), at: new Date(), kind: 'completion', provider: 'anthropic', via: 'api', model: 'claude-http-budget', modelRequested: 'claude-http-budget',
  feature: 'agents.engine', tenant: null, actor: OPERATOR, agent: null, attempt: 1, outcome: 'ok', error: null, httpStatus: null,
  tokensIn: 0, tokensOut: 0, reportedCostUsd: 0.5, durationMs: 5, failoverChain: [], ...over,
})

it('only a founder sets a budget; bad input and unknown subjects are refused', async () => {
  const body = { kind: 'person', subject: OPERATOR, tokensMonthly: 1000, costUsdMonthly: null }
  expect((await call('PUT', '/usage/budgets', 'operator', body)).status).toBe(403)
  expect((await call('PUT', '/usage/budgets', 'viewer', body)).status).toBe(403)
  for (const bad of [{}, { ...body, tokensMonthly: -1 }, { ...body, kind: 'team' }, { ...body, costUsdMonthly: 'ten' }, { ...body, extra: 1 }]) {
    const refused = await call('PUT', '/usage/budgets', 'founder', bad)
    expect([refused.status, refused.json.data?.code], JSON.stringify(bad)).toEqual([400, 'bad_input'])
  }
  const unknown = await call('PUT', '/usage/budgets', 'founder', { ...body, subject: 'nobody@studio.test' })
  expect([unknown.status, unknown.json.data?.code]).toEqual([404, 'not_found'])
  const set = await call('PUT', '/usage/budgets', 'founder', body)
  expect(set.status).toBe(200)
  expect(set.json.budget).toMatchObject({ subjectKind: 'person', subject: OPERATOR, tokensMonthly: 1000, costUsdMonthly: null, updatedBy: 'founder@studio.test' })
  expect((await call('GET', '/usage?month=2026-13', 'viewer')).json.data?.code).toBe('bad_input')
})

it('refuses new runs past the budget with budget_exceeded and the reason; the offline provider still runs', async () => {
  const created = await call('POST', '/agents/custom', 'operator', { codename: 'http-budget', nickname: 'Budgeted', allowlist: { tools: ['recall_memory'] } })
  expect(created.status, JSON.stringify(created.json)).toBe(200)
  const within = await call('POST', '/agents/custom/http-budget/runs', 'operator', { request: 'Within the budget.' })
  expect(within.status, JSON.stringify(within.json)).toBe(200)

  await insertLedgerRows(database.db, [premium({ tokensIn: 1200, tokensOut: 300 }), premium({ actor: '=HYPERLINK("http://evil")', tokensIn: 1 })])
  const countRuns = async () => Number((await database.db.execute<{ n: string }>(sql`select count(*) as n from agent_runs`))[0]!.n)
  const before = await countRuns()
  const refused = await call('POST', '/agents/custom/http-budget/runs', 'operator', { request: 'Past the budget.' })
  expect(refused.status).toBe(429)
  expect(refused.json.data).toMatchObject({
    code: 'budget_exceeded',
    message: `the monthly budget of ${OPERATOR} is reached: 1500 of 1000 tokens; a founder can raise it on /hub/usage`,
    budget: { kind: 'person', subject: OPERATOR, month },
  })
  const personal = await call('POST', '/agents/runs', 'operator', { request: 'My own agent, past the budget.' })
  expect([personal.status, personal.json.data?.code]).toEqual([429, 'budget_exceeded'])
  expect(await countRuns()).toBe(before)

  // Other people are not limited by the operator's budget.
  expect((await call('POST', '/agents/runs', 'founder', { request: 'Founder, no budget.' })).status).toBe(200)

  const notifications = await call('GET', '/notifications', 'operator')
  expect(notifications.json).toEqual(expect.arrayContaining([expect.objectContaining({ to: '/hub/usage', body: expect.stringContaining(`The monthly budget of ${OPERATOR} is reached`) })]))

  // Raised by the founder: the next run goes.
  expect((await call('PUT', '/usage/budgets', 'founder', { kind: 'person', subject: OPERATOR, tokensMonthly: 100_000, costUsdMonthly: null })).status).toBe(200)
  expect((await call('POST', '/agents/custom/http-budget/runs', 'operator', { request: 'Raised.' })).status).toBe(200)
})

it('an agent budget reached refuses that agent for everyone', async () => {
  expect((await call('PUT', '/usage/budgets', 'founder', { kind: 'agent', subject: 'http-budget', tokensMonthly: null, costUsdMonthly: 1 })).status).toBe(200)
  await insertLedgerRows(database.db, [premium({ agent: 'http-budget', reportedCostUsd: 2 })])
  const refused = await call('POST', '/agents/custom/http-budget/runs', 'operator', { request: 'The agent is over.' })
  expect([refused.status, refused.json.data?.code]).toEqual([429, 'budget_exceeded'])
  expect(refused.json.data.message).toBe('the monthly budget of agent http-budget is reached: $2.00 of $1.00; a founder can raise it on /hub/usage')
})

it('shows the month by person, agent, client and model with the budgets, to a viewer', async () => {
  const report = await call('GET', `/usage?month=${month}`, 'viewer')
  expect(report.status).toBe(200)
  expect(report.json.month).toBe(month)
  expect(report.json.byPerson.find((row: Json) => row.key === OPERATOR)).toMatchObject({ creditTokens: 1500 })
  // The personal agent's rows name whose it is (personal:<email>).
  expect(report.json.byAgent.map((row: Json) => row.key)).toEqual(expect.arrayContaining(['http-budget', expect.stringMatching(/^personal:/)]))
  expect(report.json.byModel.map((row: Json) => row.key)).toEqual(expect.arrayContaining(['anthropic/claude-http-budget', 'offline/offline-rules-v1']))
  expect(Array.isArray(report.json.byClient)).toBe(true)
  expect(report.json.budgets).toEqual(expect.arrayContaining([
    expect.objectContaining({ kind: 'agent', subject: 'http-budget', reached: true }),
    expect.objectContaining({ kind: 'person', subject: OPERATOR, reached: false }),
  ]))
})

it('downloads the runs and the ledger of a month as CSV, formulas neutralised', async () => {
  const ledger = await fetch(`${hub.url}/api/usage/ledger.csv?month=${month}`, { headers: { cookie: cookies.viewer } })
  expect(ledger.status).toBe(200)
  expect(ledger.headers.get('content-type')).toContain('text/csv')
  expect(ledger.headers.get('content-disposition')).toBe(`attachment; filename="ai-ledger-${month}.csv"`)
  const ledgerText = await ledger.text()
  expect(ledgerText.split('\r\n')[0]).toContain('at,call_id,kind,provider')
  expect(ledgerText).toContain('claude-http-budget')
  expect(ledgerText).toContain('"\'=HYPERLINK(""http://evil"")"')

  const runs = await fetch(`${hub.url}/api/usage/runs.csv?month=${month}`, { headers: { cookie: cookies.viewer } })
  expect(runs.status).toBe(200)
  expect(runs.headers.get('content-disposition')).toBe(`attachment; filename="agent-runs-${month}.csv"`)
  const runsText = await runs.text()
  expect(runsText.split('\r\n')[0]).toBe('created_at,id,agent,acting_email,owner_email,trigger,surface,status,provider,model,iterations,tokens_in,tokens_out,cost_usd,ended_at,error,request')
  expect(runsText).toContain(',http-budget,operator@studio.test,')

  const empty = await fetch(`${hub.url}/api/usage/runs.csv?month=2001-01`, { headers: { cookie: cookies.viewer } })
  expect((await empty.text()).trimEnd().split('\r\n')).toHaveLength(1)
  expect((await fetch(`${hub.url}/api/usage/ledger.csv?month=bad`, { headers: { cookie: cookies.viewer } })).status).toBe(400)
  expect((await fetch(`${hub.url}/api/usage/ledger.csv`)).status).toBe(401)
})
