// /hub/health in a browser after a simulated night (issue 20): planted drift, coverage and
// runs on the hub's database, the health-report automate run against a scripted loopback
// model → the page shows the five dimensions, Nightingale's care note, the history chart and
// the run log (filtered by outcome, a run's output opened); the nights' empty state; the
// home page's summary links here; memory-metrics' measures are drawn too. The routes refuse
// bad input with a 400. Last, a night of the maintenance loop over a planted documentation
// tree: the nights table shows its row, each step with its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { runTs, ROOT } from '../helpers/processes'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { healthReports } from '#db/schema/health'
import { memNotes } from '#db/schema/mem'
import { plantCoverage, plantInspection, plantRun } from '#layers/health/tests/fixtures/night'
import { plantDocsTree } from '#layers/health/tests/fixtures/docs-tree'
import { join } from 'node:path'
import { rm } from 'node:fs/promises'

const NOTE = 'One chapter cites a file that no longer exists. Repair that reference first. Everything else can wait.'
const POLL = { timeout: 10_000 }

let hub: Hub
let model: ScriptedModel
let browser: Browser
let page: Page
let cookie: string

beforeAll(async () => {
  model = await startScriptedModel()
  model.byDefault(() => NOTE)
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', ...model.env } })
  const database = await hubDatabase(hub)
  try {
    const db = database.db
    await plantInspection(db, [{ chapter: 'docs/memory.md', dead: ['layers/memory/core/gone.ts'], score: 50 }])
    await plantCoverage(db, 12, [])
    await plantRun(db, 'atlas-collect', 'failed', new Date(Date.now() - 3_600_000))
    await plantRun(db, 'learning-classify', 'ok', new Date(Date.now() - 7_200_000))
    // Three earlier mornings, for the history.
    for (const [i, score] of [[3, 60], [2, 70], [1, 80]] as const) {
      const date = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10)
      await db.insert(healthReports).values({ reportDate: date, status: 'warning', score, careNote: '', dimensions: [
        { key: 'proprioception', score, status: 'warning', summary: 'drift' },
        { key: 'coverage', score: 100, status: 'ok', summary: 'covered' },
        { key: 'debt', score: 100, status: 'ok', summary: 'none' },
        { key: 'learning', score, status: 'ok', summary: 'fresh' },
        { key: 'automations', score: 100, status: 'ok', summary: 'fine' },
      ] })
    }
    await db.insert(memNotes).values({ path: 'inbox/promote-cache-rule.md', space: 'inbox', title: 'Promote the cache rule', body: 'A draft.', size: 8, fileModifiedAt: new Date() })
  }
  finally {
    await database.close()
  }
  const night = await runTs('automates/run.ts', ['health-report'], { env: { DATA_DIR: hub.dataDir, ...model.env } })
  expect(night.code, night.output).toBe(2)
  const measured = await runTs('automates/run.ts', ['memory-metrics'], { env: { DATA_DIR: hub.dataDir } })
  expect(measured.code, measured.output).toBe(0)
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

async function open(path: string): Promise<void> {
  await page.goto(`${hub.url}${path}`)
  await page.waitForLoadState('networkidle')
  await page.waitForFunction(() => Boolean((document.querySelector('#__nuxt') as { __vue_app__?: unknown } | null)?.__vue_app__))
}

describe('/hub/health after a night', () => {
  it('shows the five dimensions, the care note, the history chart and the run log', async () => {
    await open('/hub/health')
    await expect.poll(async () => page.getByTestId('health-today').count(), POLL).toBe(1)
    for (const key of ['proprioception', 'coverage', 'debt', 'learning', 'automations']) {
      expect(await page.getByTestId(`dimension-${key}`).count()).toBe(1)
    }
    expect(await page.getByTestId('dimension-status-proprioception').innerText()).toBe('critical')
    expect(await page.getByTestId('dimension-proprioception').innerText()).toMatch(/1 chapter of 10 cite a dead reference/)
    expect(await page.getByTestId('dimension-status-coverage').innerText()).toBe('ok')
    expect(await page.getByTestId('health-overall').innerText()).toBe('critical')
    expect(await page.getByTestId('care-note').innerText()).toContain(NOTE)
    // The founder's card of sign-in attempts: none wrong in this hub's life.
    await page.getByTestId('health-sign-ins').getByText('No wrong password and no refused try in this window.').waitFor()
    // The chart draws one line per dimension over the four mornings.
    await expect.poll(async () => page.locator('[data-testid="health-chart"] svg path').count(), POLL).toBeGreaterThanOrEqual(5)
    // The run log: the report's own run and the planted ones; the failed one's output opens.
    const log = page.getByTestId('health-run-log')
    await expect.poll(async () => log.getByText('health-report').count(), POLL).toBeGreaterThan(0)
    expect(await log.getByText('atlas-collect').count()).toBeGreaterThan(0)
    await page.getByTestId('runs-status').click()
    await page.getByRole('option', { name: 'failed' }).click()
    await expect.poll(async () => log.getByText('health-report').count(), POLL).toBe(0)
    expect(page.url()).toContain('runs.status=failed')
    await log.getByRole('button', { name: 'Show the output' }).first().click()
    await expect.poll(async () => page.getByTestId('health-run-output').innerText(), POLL).toContain('atlas-collect said hello')
    // The memory's measures, drawn.
    await expect.poll(async () => page.locator('[data-testid="memory-metrics"] svg').count(), POLL).toBeGreaterThan(0)
    // No night of the loop yet; the planted draft waits in the inbox.
    expect(await page.getByTestId('nights-empty').innerText()).toMatch(/No night recorded yet/)
    expect(await page.getByTestId('inbox-table').getByText('Promote the cache rule').count()).toBe(1)
  })

  it('the home page keeps a summary that links here', async () => {
    await open('/hub')
    await expect.poll(async () => page.getByTestId('home-health-status').innerText(), POLL).toMatch(/critical/)
    // The whole card is the link (its anchor overlays the card): a click anywhere on it opens the page.
    expect(await page.getByTestId('home-health').getAttribute('href')).toBe('/hub/health')
    await page.getByTestId('home-health').locator('span[aria-hidden="true"]').first().click()
    await expect.poll(() => new URL(page.url()).pathname, POLL).toBe('/hub/health')
  })

  it('refuses bad input with a 400 and a machine-readable body; needs a session', async () => {
    for (const path of ['/api/health/runs?status=exploded', '/api/health/runs?page=0', '/api/health/reports?days=0', '/api/health/nights?limit=1000', '/api/health/memory-metrics?days=abc']) {
      const response = await fetch(`${hub.url}${path}`, { headers: { cookie } })
      expect(response.status, path).toBe(400)
      expect(await response.json(), path).toMatchObject({ statusCode: 400 })
    }
    const filtered = await (await fetch(`${hub.url}/api/health/runs?automation=atlas-collect&status=failed`, { headers: { cookie } })).json() as { runs: { total: number, items: Array<{ automation: string }> }, automates: string[] }
    expect(filtered.runs.total).toBe(1)
    expect(filtered.automates).toEqual(expect.arrayContaining(['atlas-collect', 'health-report', 'learning-classify']))
    expect((await fetch(`${hub.url}/api/health/reports`)).status).toBe(401)
  })

  it('shows the maintenance loop\'s night in the nights table, each step with its code', async () => {
    const tree = await plantDocsTree(join(ROOT, 'tests/.tmp'))
    try {
      const env = { DATA_DIR: hub.dataDir, DOCS_DIR: tree.docs, DOCS_CODE_DIR: tree.code, DOCS_STAGING_DIR: tree.staging, ...model.env }
      const loop = await runTs('automates/run.ts', ['maintenance-loop', '--no-deep'], { env })
      expect(loop.code, loop.output).toBe(2)
    }
    finally {
      await rm(tree.root, { recursive: true, force: true })
    }
    await open('/hub/health')
    const nights = page.getByTestId('nights-table')
    await expect.poll(async () => nights.getByText('inspection 1', { exact: true }).count(), POLL).toBe(1)
    for (const step of ['coverage 1', 'repair 1', 'deep 0', 'publishing 0', 'reinspection 1', 'health-report 2']) {
      expect(await nights.getByText(step, { exact: true }).count(), step).toBe(1)
    }
  })
})
