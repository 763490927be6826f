// The agents reactor in a real browser against the real hub: every active agent is a node on
// its family's ring (direction 1, scoping and execution 2, validation 3), inactive agents are
// absent, rings turn at 60 / 90 (counter-clockwise) / 120 s and stand still under
// prefers-reduced-motion, the live state comes from heartbeats, and a click opens the agent.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { connectDatabase } from '#db/connection'
import { findRunningEmbedded } from '#db/embedded'
import { agents } from '#db/schema/agents'
import { seedAgents } from '#layers/agents/core/seed'
import { recordHeartbeat } from '#layers/agents/core/heartbeats'
import { REACTOR_RING, isAgentFamily } from '#layers/agents/core/families'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page
interface ComputedStyle { animationName: string, animationDuration: string, animationIterationCount: string }

let active: { codename: string, nickname: string, groupName: string }[] = []

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  const database = await connectDatabase(findRunningEmbedded(hub.dataDir)!, { max: 1 })
  try {
    await seedAgents(database.db)
    await database.db.update(agents).set({ active: 0 }).where(eq(agents.codename, 'podcast'))
    await recordHeartbeat(database.db, 'orchestrator', 'working', 'spawn in progress')
    active = await database.db
      .select({ codename: agents.codename, nickname: agents.nickname, groupName: agents.groupName })
      .from(agents)
      .where(eq(agents.active, 1))
  }
  finally {
    await database.close()
  }
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1366, height: 1000 } })
  await signInPage(page, hub.url, FOUNDER)
}, 200_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

it('shows every active agent on its family\'s ring, and no inactive one', async () => {
  expect(active.length).toBeGreaterThan(25)
  await page.goto(`${hub.url}/hub/agents`)
  await page.getByTestId('reactor').waitFor()
  await expect.poll(() => page.locator('[data-testid^="reactor-node-"]').count()).toBe(active.length)
  for (const agent of active) {
    if (!isAgentFamily(agent.groupName)) throw new Error(`unknown family ${agent.groupName}`)
    const ring = REACTOR_RING[agent.groupName]
    const node = page.locator(`[data-testid="reactor-ring-${ring}"] [data-testid="reactor-node-${agent.codename}"]`)
    expect(await node.count(), `${agent.codename} on ring ${ring}`).toBe(1)
    expect(await node.textContent()).toContain(agent.nickname)
  }
  expect(await page.getByTestId('reactor-node-podcast').count()).toBe(0)
  expect(await page.getByTestId('reactor-node-orchestrator').getAttribute('data-state')).toBe('working')
  expect(await page.getByTestId('reactor-node-backend').getAttribute('data-state')).toBe('dormant')
  await page.screenshot({ path: `${TESTS_TMP}/reactor.png` })
})

it('turns ring 1 in 60 s, ring 2 in 90 s counter-clockwise, ring 3 in 120 s', async () => {
  const motion = async (ring: number) => await page.getByTestId(`reactor-ring-${ring}`).evaluate((el) => {
    // Runs in the page (this file compiles without the DOM library).
    const style = (globalThis as unknown as { getComputedStyle: (e: unknown) => ComputedStyle }).getComputedStyle(el)
    return { name: style.animationName, duration: style.animationDuration, iterations: style.animationIterationCount }
  })
  // Scoped styles suffix the keyframes' names with a hash.
  expect(await motion(1)).toEqual({ name: expect.stringMatching(/^reactor-spin-cw(-|$)/), duration: '60s', iterations: 'infinite' })
  expect(await motion(2)).toEqual({ name: expect.stringMatching(/^reactor-spin-ccw(-|$)/), duration: '90s', iterations: 'infinite' })
  expect(await motion(3)).toEqual({ name: expect.stringMatching(/^reactor-spin-cw(-|$)/), duration: '120s', iterations: 'infinite' })
  expect(await page.getByTestId('reactor-ring-2').getAttribute('data-direction')).toBe('counter-clockwise')
})

it('stands still under prefers-reduced-motion, and a click on a node opens its page', async () => {
  await page.emulateMedia({ reducedMotion: 'reduce' })
  await page.goto(`${hub.url}/hub/agents`)
  await page.getByTestId('reactor-node-securite').waitFor()
  for (const ring of [1, 2, 3]) {
    expect(await page.getByTestId(`reactor-ring-${ring}`).evaluate(el => (globalThis as unknown as { getComputedStyle: (e: unknown) => ComputedStyle }).getComputedStyle(el).animationName)).toBe('none')
  }
  await page.getByTestId('reactor-node-securite').click()
  await page.waitForURL('**/hub/agents/securite')
  await expect.poll(() => page.getByTestId('agent-nickname').textContent(), { timeout: 10_000 }).toBe('Mitnick')
  const tokens = await page.getByTestId('agent-tier-tokens').allTextContents()
  expect(tokens).toHaveLength(3)
  for (const label of tokens) expect(label).toMatch(/^\d+ \/ ~(150|350|600) tokens$/)
  expect(await page.getByTestId('agent-relationships').textContent()).toContain('Lovelace')
})

it('keeps its labels legible on a phone: 11 px on screen at 390 px wide, as at 1366', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
  const phone = await context.newPage()
  try {
    await signInPage(phone, hub.url, FOUNDER)
    await phone.goto(`${hub.url}/hub/agents`)
    await phone.getByTestId('reactor-node-securite').waitFor()
    // The label size follows the drawing's width once the browser has measured it.
    await expect.poll(async () => Math.min(...await phone.getByTestId('reactor-label').evaluateAll(labels => labels.map(label => label.getBoundingClientRect().height))), { timeout: 10_000 }).toBeGreaterThanOrEqual(10.5)
  }
  finally {
    await context.close()
  }
})

it('the registry filters by family and by prompt domain', async () => {
  await page.goto(`${hub.url}/hub/agents?family=direction`)
  const table = page.getByTestId('agents-table')
  await table.getByText('Winnicott').waitFor()
  await expect.poll(async () => (await table.locator('tbody tr').count()), { timeout: 10_000 }).toBe(4)
  await page.goto(`${hub.url}/hub/agents?domain=podcast&active=true`)
  await expect.poll(async () => (await table.textContent()) ?? '', { timeout: 10_000 }).toContain('No agent matches')
  await page.goto(`${hub.url}/hub/agents?domain=podcast`)
  await table.getByText('Schaeffer').waitFor()
})
