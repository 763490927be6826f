// Project proactivity on /hub/health after a simulated night: a tenant's planted exchange on
// the hub's database, the real nightly-consolidation automate (--live --only
// project-proactivity) against the scripted loopback model → the page lists the project with
// its verdict, action_required first; the route needs a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { runTs } from '../helpers/processes'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { clients } from '#db/schema/clients'
import { workProjects } from '#db/schema/worksites'

const POLL = { timeout: 10_000 }

let hub: Hub
let model: ScriptedModel
let browser: Browser
let page: Page
let cookie: string

beforeAll(async () => {
  model = await startScriptedModel()
  model.byDefault(prompt => (prompt.includes('Quote export')
    ? { verdict: 'action_required', reason: 'The client reports wrong totals.' }
    : { verdict: 'awaiting_reply', reason: 'The studio asked for the logo files.' }))
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', ...model.env } })
  const database = await hubDatabase(hub)
  try {
    const db = database.db
    const [tenant] = await db.insert(clients).values({ slug: 'acme-proactivity', name: 'Acme', domains: ['acme-client.fr'] }).returning({ id: clients.id })
    for (const [name, subject] of [['Brand refresh', 'Logo files'], ['Quote export', 'Quote export: totals wrong']] as const) {
      await db.insert(workProjects).values({ tenantId: tenant!.id, name, createdBy: 'tests' })
      const key = `<${name.replace(/\s/g, '-')}@acme-client.fr>`
      const [message] = await db.insert(atlasMessages).values({ dedupeKey: key, messageId: key, rawSha256: 'x', rawSize: 1, mailbox: 'INBOX', fromAddress: 'claire@acme-client.fr', subject, textBody: 'Hello.', receivedAt: new Date(Date.now() - 3_600_000) }).returning({ id: atlasMessages.id })
      await db.insert(atlasInbox).values({ messageId: message!.id, tenantId: tenant!.id })
    }
  }
  finally {
    await database.close()
  }
  const night = await runTs('automates/run.ts', ['nightly-consolidation', '--live', '--only', 'project-proactivity'], { env: { DATA_DIR: hub.dataDir, ...model.env } })
  expect(night.code, night.output).toBe(0)
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  await signInPage(page, hub.url, FOUNDER)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
  await model?.close()
})

describe('/hub/health: project proactivity', () => {
  it('lists the latest night\'s classifications, action required first', async () => {
    await page.goto(`${hub.url}/hub/health`)
    await page.waitForLoadState('networkidle')
    const table = page.getByTestId('proactivity-table')
    await expect.poll(async () => table.getByText('Quote export', { exact: true }).count(), POLL).toBe(1)
    const rows = await table.locator('tbody tr').allInnerTexts()
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatch(/Quote export[\s\S]*action required[\s\S]*The client reports wrong totals/)
    expect(rows[1]).toMatch(/Brand refresh[\s\S]*awaiting reply/)
  })

  it('the route answers the rows to a session and 401 without one', async () => {
    const rows = await (await fetch(`${hub.url}/api/health/proactivity`, { headers: { cookie } })).json() as Array<{ project: string, verdict: string, messages: number }>
    expect(rows.map(r => [r.project, r.verdict, r.messages])).toEqual([['Quote export', 'action_required', 1], ['Brand refresh', 'awaiting_reply', 1]])
    expect((await fetch(`${hub.url}/api/health/proactivity`)).status).toBe(401)
  })
})
