// Every page of the hub opens, signed in, with no page error and no failed API call; the hub
// runs with the spawn engine switched off (ATLAS_SPAWN_DISABLED=1), which the Atlas inbox says.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { domains } from '#shared/domains'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page

beforeAll(async () => {
  // With the spawn engine's kill switch on, which the Atlas inbox must say.
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1' } })
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1366, height: 860 } })
  await signInPage(page, hub.url, FOUNDER)
})

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

it.each(domains.map(d => [d.id, d.title]))('/hub/%s opens from the sidebar and reloads without errors', async (id, title) => {
  const errors: string[] = []
  const onPageError = (error: Error) => errors.push(`page error: ${error.message}`)
  // Console errors too: a hydration mismatch (server and browser rendering differently) shows there.
  const onConsole = (message: { type: () => string, text: () => string }) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`)
  }
  const onResponse = (response: { url: () => string, status: () => number }) => {
    if (response.url().includes('/api/') && response.status() >= 400) errors.push(`${response.status()} ${response.url()}`)
  }
  page.on('pageerror', onPageError)
  page.on('console', onConsole)
  page.on('response', onResponse)
  try {
    await page.getByRole('link', { name: title }).first().click()
    await page.waitForURL(`**/hub/${id}`)
    // And loaded directly: rendered by the server, then hydrated in the browser.
    await page.reload()
    // Each domain page titles itself with its domain's title (useHead): wait for the render.
    await page.waitForFunction(expected => document.title.includes(expected), title)
    await page.waitForLoadState('networkidle')
    expect((await page.locator('body').innerText()).length).toBeGreaterThan(200)
    await page.screenshot({ path: `${TESTS_TMP}/page-${id}.png` })
    expect(errors).toEqual([])
  }
  finally {
    page.off('pageerror', onPageError)
    page.off('console', onConsole)
    page.off('response', onResponse)
  }
})

it('says on the Atlas inbox that the spawn engine is switched off, and how to resume it', async () => {
  await page.goto(`${hub.url}/hub/atlas`)
  const status = page.getByTestId('spawn-engine-status')
  await status.getByText('The spawn engine is switched off', { exact: true }).waitFor()
  expect(await status.textContent()).toContain('Unset the variable to resume')
})

it('shows the classifier calibration with its month picker on the Atlas inbox', async () => {
  await page.goto(`${hub.url}/hub/atlas`)
  await page.getByTestId('atlas-calibration').waitFor()
  expect(await page.getByTestId('atlas-calibration-month').isVisible()).toBe(true)
})
