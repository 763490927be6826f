// Monthly budgets (issue 34, Deliver 7) on both databases, offline: the ledger carries the
// person and the agent and its bucket; the counters (included, credit, allocated, over
// budget) stay apart; a reached budget refuses a new run with its reason while an included
// model still runs; the 50/80/100 % notifications are written once each; budgets are audited
// with before/after; the CSV exports stream every row and neutralise formulas.
import { randomUUID } from 'node:crypto'
import { and, eq, like, sql } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { aiPrices } from '#db/schema/ai'
import { agentRuns } from '#db/schema/agent-runs'
import { hubAudit } from '#db/schema/hub'
import { opsAlerts } from '#db/schema/ops'
import type { Db } from '#db/connection'
import { BUDGET_ALERT_KIND, budgetStatus, monthPeriod, setBudget } from '#layers/ai/core/budgets'
import { createAiFacade } from '#layers/ai/core/facade'
import { setIncluded } from '#layers/ai/core/prices'
import { insertLedgerRows, type LedgerEntry } from '#layers/ai/core/ledger'
import { ledgerCsvStream, usageReport } from '#layers/ai/core/usage'
import { listNotifications } from '#server/core/notifications'
import type { RunContextRequest } from '../../core/engine/context'
import { BudgetExceededError } from '../../core/engine/budget'
import { firstToolRegistry } from '../../core/engine/first-tools'
import { startRun, type EngineDeps } from '../../core/engine/loop'
import { runsCsvStream } from '../../core/engine/runs-csv'
import { seedAgents } from '../../core/seed'

const FOUNDER = 'founder@studio.test'

function entry(over: Partial<LedgerEntry>): LedgerEntry {
  return {
    callId: randomUUID(), at: new Date(), kind: 'completion', provider: 'anthropic', via: 'api', model: 'budget-premium', modelRequested: 'budget-premium',
    feature: 'agents.engine', tenant: null, actor: null, agent: null, attempt: 1, outcome: 'ok', error: null, httpStatus: null,
    tokensIn: 0, tokensOut: 0, reportedCostUsd: null, durationMs: 5, failoverChain: [], ...over,
  }
}

async function collect(stream: AsyncGenerator<string>): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += chunk
  return text
}

describeOnBothDatabases('budgets', (database) => {
  let deps: EngineDeps

  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    // A premium model at $10 / $30 per million tokens, and one the studio marks included.
    await db.insert(aiPrices).values([
      { provider: 'anthropic', model: 'budget-premium', inputUsdPerMtok: 10, outputUsdPerMtok: 30 },
      { provider: 'mistral', model: 'budget-included', inputUsdPerMtok: 1, outputUsdPerMtok: 1, included: true },
    ])
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    deps = { db, chat: request => ai.chatWithTools(request), flushLedger: () => ai.flush(), registry: firstToolRegistry(), ports: {} as EngineDeps['ports'], log: () => {} }
  })

  const context = (email: string, request: string, extra: Partial<RunContextRequest> = {}): RunContextRequest => ({
    surface: 'api', actingUser: { id: null, email, role: 'operator' }, agent: { codename: 'personal', ownerEmail: email }, regime: 'user', request,
    instructions: [{ source: 'instructions:v1', text: 'Be brief.' }], ...extra,
  })

  const alertsOf = async (db: Db, prefix: string) =>
    (
      await db
        .select({ subject: opsAlerts.subject, message: opsAlerts.message })
        .from(opsAlerts)
        .where(and(eq(opsAlerts.kind, BUDGET_ALERT_KIND), like(opsAlerts.subject, `${prefix}%`)))
    )
      .map(row => row.subject.split(':').at(-1))
      .sort()

  it('writes the agent and the bucket on the ledger: offline and included models in the allowance, others premium', async () => {
    const { db } = database()
    const run = await startRun(deps, context('ledger@studio.test', 'Hello there.'))
    expect(run.status).toBe('succeeded')
    await deps.flushLedger!()
    const rows = await db.execute<{ agent: string, actor: string, bucket: string }>(sql`select agent, actor, bucket from ai_consumption where actor = 'ledger@studio.test'`)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every(row => row.agent === 'personal' && row.bucket === 'allowance')).toBe(true)
    await insertLedgerRows(db, [
      entry({ actor: 'ledger@studio.test', provider: 'mistral', model: 'budget-included', tokensIn: 10 }),
      entry({ actor: 'ledger@studio.test', tokensIn: 10 }),
    ])
    const buckets = await db.execute<{ model: string, bucket: string }>(sql`select model, bucket from ai_consumption where actor = 'ledger@studio.test' and provider <> 'offline' order by model`)
    expect(buckets.map(row => [row.model, row.bucket])).toEqual([['budget-included', 'allowance'], ['budget-premium', 'premium']])
  })

  it('keeps the counters apart: included, credit, allocated within the budget, over budget', async () => {
    const { db } = database()
    const email = 'counters@studio.test'
    await insertLedgerRows(db, [
      entry({ actor: email, provider: 'offline', via: 'local', model: 'offline-rules-v1', modelRequested: 'offline-rules-v1', tokensIn: 1000 }),
      entry({ actor: email, provider: 'mistral', model: 'budget-included', modelRequested: 'budget-included', tokensIn: 1000, tokensOut: 1000 }),
      entry({ actor: email, tokensIn: 2000, tokensOut: 1000 }),
      // Another month: not counted.
      entry({ actor: email, at: new Date(Date.UTC(2020, 0, 15)), tokensIn: 99_000 }),
    ])
    await setBudget(db, { kind: 'person', subject: email, tokensMonthly: 2000, costUsdMonthly: null }, FOUNDER)
    const [budget] = await db.execute<{ subject_kind: 'person', subject: string, tokens_monthly: number, cost_usd_monthly: null }>(sql`select * from ai_budgets where subject = ${email}`)
    expect(budget).toBeDefined()
    const status = await budgetStatus(db, 'person', email, monthPeriod(undefined), { subjectKind: 'person', subject: email, tokensMonthly: 2000, costUsdMonthly: null, updatedAt: new Date(), updatedBy: FOUNDER })
    expect(status.usage.included).toEqual({ tokens: 3000, costUsd: 0.002 })
    // 2000 in at $10 + 1000 out at $30 per million.
    expect(status.usage.credit).toEqual({ tokens: 3000, costUsd: 0.05 })
    expect(status.usage.allocated).toEqual({ tokens: 2000, costUsd: 0.05 })
    expect(status.usage.overBudget).toEqual({ tokens: 1000, costUsd: 0 })
    expect(status).toMatchObject({ ratio: 1.5, reached: true, limits: { tokensMonthly: 2000, costUsdMonthly: null } })
  })

  it('a reached person budget refuses a new run with its reason; an included model still runs; notifications once per threshold', async () => {
    const { db } = database()
    const email = 'spender@studio.test'
    await setBudget(db, { kind: 'person', subject: email, tokensMonthly: 10_000, costUsdMonthly: null }, FOUNDER)
    await insertLedgerRows(db, [entry({ actor: email, tokensIn: 6000 })])
    // 60 %: the run goes, the 50 % notification is written.
    expect((await startRun(deps, context(email, 'First.'))).status).toBe('succeeded')
    expect(await alertsOf(db, `person:${email}:`)).toEqual(['50'])
    await insertLedgerRows(db, [entry({ actor: email, tokensIn: 5000 })])
    const refused = startRun(deps, context(email, 'Refused, over budget.'))
    await expect(refused).rejects.toBeInstanceOf(BudgetExceededError)
    await expect(refused).rejects.toMatchObject({ code: 'budget_exceeded', message: `the monthly budget of ${email} is reached: 11000 of 10000 tokens; a founder can raise it on /hub/usage` })
    expect(await db.select().from(agentRuns).where(and(eq(agentRuns.actingEmail, email), eq(agentRuns.request, 'Refused, over budget.')))).toEqual([])
    // The offline provider (and any model marked included) keeps running.
    const included = await startRun(deps, context(email, 'Included still runs.', { modelRequest: { provider: 'offline' } }))
    expect(included.status).toBe('succeeded')
    await expect(startRun(deps, context(email, 'Refused again.'))).rejects.toBeInstanceOf(BudgetExceededError)
    expect(await alertsOf(db, `person:${email}:`)).toEqual(['100', '50', '80'])
    const notifications = await listNotifications(db)
    const reached = notifications.find(n => n.id.startsWith('alert-') && n.body.includes(`The monthly budget of ${email} is reached`))
    expect(reached).toMatchObject({ to: '/hub/usage' })
  })

  it('a reached agent budget refuses every person\'s run of that agent; a raised budget lets it run again', async () => {
    const { db } = database()
    await setBudget(db, { kind: 'agent', subject: 'personal', tokensMonthly: null, costUsdMonthly: 1 }, FOUNDER)
    // Other runs of this file already wrote offline rows for 'personal' (0 credit): not counted.
    await insertLedgerRows(db, [entry({ actor: 'someone@studio.test', agent: 'personal', reportedCostUsd: 1.25 })])
    await expect(startRun(deps, context('other@studio.test', 'Agent over budget.'))).rejects.toMatchObject({ code: 'budget_exceeded', message: 'the monthly budget of agent personal is reached: $1.25 of $1.00; a founder can raise it on /hub/usage' })
    await setBudget(db, { kind: 'agent', subject: 'personal', tokensMonthly: null, costUsdMonthly: 5 }, FOUNDER)
    expect((await startRun(deps, context('other@studio.test', 'Agent within budget.'))).status).toBe('succeeded')
    await setBudget(db, { kind: 'agent', subject: 'personal', tokensMonthly: null, costUsdMonthly: null }, FOUNDER)
    const audit = await db.select({ details: hubAudit.details }).from(hubAudit).where(and(eq(hubAudit.action, 'ai_budget_updated'), eq(hubAudit.target, 'agent:personal'))).orderBy(hubAudit.id)
    expect(audit.map(row => row.details)).toEqual([
      { before: null, after: { tokensMonthly: null, costUsdMonthly: 1 } },
      { before: { tokensMonthly: null, costUsdMonthly: 1 }, after: { tokensMonthly: null, costUsdMonthly: 5 } },
      { before: { tokensMonthly: null, costUsdMonthly: 5 }, after: null },
    ])
    expect(await db.execute(sql`select 1 from ai_budgets where subject_kind = 'agent' and subject = 'personal'`)).toHaveLength(0)
  })

  it('reports the month by person, agent, client and model, with the budgets', async () => {
    const { db } = database()
    const report = await usageReport(db, monthPeriod(undefined))
    const spender = report.byPerson.find(row => row.key === 'spender@studio.test')!
    expect(spender).toMatchObject({ creditTokens: 11_000 })
    expect(report.byAgent.find(row => row.key === 'personal')!.creditCostUsd).toBeCloseTo(1.25, 6)
    expect(report.byModel.map(row => row.key)).toEqual(expect.arrayContaining(['anthropic/budget-premium', 'mistral/budget-included', 'offline/offline-rules-v1']))
    expect(report.byClient.map(row => row.key)).toContain('(no client)')
    expect(report.budgets.find(b => b.subject === 'spender@studio.test')).toMatchObject({ kind: 'person', reached: true })
    expect(report.total.tokens).toBe(report.byPerson.reduce((sum, row) => sum + row.tokens, 0))
  })

  it('streams the ledger and the runs as CSV, page by page, with formulas neutralised', async () => {
    const { db } = database()
    const month = monthPeriod('2021-03')
    await insertLedgerRows(db, Array.from({ length: 5 }, (_, i) => entry({ at: new Date(Date.UTC(2021, 2, 2 + i)), actor: i === 0 ? '=HYPERLINK("http://evil")' : `p${i}@studio.test`, error: i === 1 ? 'a, "quoted"\nline' : null })))
    const csv = await collect(ledgerCsvStream(db, month, 2))
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toBe('at,call_id,kind,provider,via,model,model_requested,feature,tenant,actor,agent,bucket,attempt,outcome,error,http_status,tokens_in,tokens_out,cost_usd,cost_source,duration_ms,failover_chain')
    expect(csv).toContain('"\'=HYPERLINK(""http://evil"")"')
    expect(csv).toContain('"a, ""quoted""\nline"')
    expect(csv.match(/2021-03-0\dT/g)).toHaveLength(5)

    const [row] = await db.insert(agentRuns).values({ surface: 'api', trigger: 'interactive', agent: 'personal', actingEmail: 'csv@studio.test', actingRole: 'operator', ownerEmail: 'csv@studio.test', regime: 'user', request: '@SUM(1+1)', context: {}, createdAt: new Date(Date.UTC(2021, 2, 3)) }).returning({ id: agentRuns.id })
    await db.insert(agentRuns).values({ surface: 'api', trigger: 'interactive', agent: 'personal', actingEmail: 'csv2@studio.test', actingRole: 'operator', ownerEmail: 'csv2@studio.test', regime: 'user', request: 'fine', context: {}, createdAt: new Date(Date.UTC(2021, 2, 4)) })
    const runs = await collect(runsCsvStream(db, month, 1))
    expect(runs.split('\r\n')[0]).toBe('created_at,id,agent,acting_email,owner_email,trigger,surface,status,provider,model,iterations,tokens_in,tokens_out,cost_usd,ended_at,error,request')
    expect(runs).toContain(`2021-03-03T00:00:00.000Z,${row!.id},personal,csv@studio.test`)
    expect(runs).toContain(',\'@SUM(1+1)')
    expect(runs.trimEnd().split('\r\n')).toHaveLength(3)
  })

  it('a founder marks a priced model included (audited): its next calls are in the allowance and run past a budget', async () => {
    const { db } = database()
    expect(await setIncluded(db, 'anthropic', 'no-such-model', true, FOUNDER)).toBeNull()
    const price = await setIncluded(db, 'anthropic', 'budget-premium', true, FOUNDER)
    expect(price).toMatchObject({ included: true, updatedBy: FOUNDER })
    await insertLedgerRows(db, [entry({ actor: 'included@studio.test', tokensIn: 50 })])
    const [row] = await db.execute<{ bucket: string }>(sql`select bucket from ai_consumption where actor = 'included@studio.test'`)
    expect(row!.bucket).toBe('allowance')
    // spender@ is past their budget: a run asking for the now-included model is let through.
    const asked = startRun(deps, context('spender@studio.test', 'On the included model.', { modelRequest: { provider: 'anthropic', model: 'budget-premium' } }))
    await expect(asked).resolves.toBeDefined()
    await setIncluded(db, 'anthropic', 'budget-premium', false, FOUNDER)
    await expect(startRun(deps, context('spender@studio.test', 'Premium again.', { modelRequest: { provider: 'anthropic', model: 'budget-premium' } }))).rejects.toBeInstanceOf(BudgetExceededError)
    const audit = await db.select({ details: hubAudit.details }).from(hubAudit).where(eq(hubAudit.action, 'ai_price_included_updated')).orderBy(hubAudit.id)
    expect(audit.map(entry => entry.details)).toEqual([
      { before: { included: false }, after: { included: true } },
      { before: { included: true }, after: { included: false } },
    ])
  })
})
