// The API page in chromium: reached from the sidebar, it lists the operations by domain, the
// filter narrows them, an operation unfolds into its role, parameters and body fields (from
// the route's own zod schema), and the document downloads as JSON.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'

let hub: Hub
let browser: Browser
let page: Page
const problems: string[] = []

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  page.on('pageerror', error => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`)
  })
  page.on('response', (response) => {
    if (response.url().includes('/api/') && response.status() >= 400) problems.push(`${response.status()} ${response.url()}`)
  })
  await signInPage(page, hub.url, FOUNDER)
})

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

it('lists the API by domain from the sidebar, filters it, unfolds an operation and downloads the document', async () => {
  await page.goto(`${hub.url}/hub`)
  await page.getByRole('link', { name: 'API', exact: true }).click()
  await page.waitForURL(`${hub.url}/hub/api`)
  await page.getByTestId('api-tag-clients').waitFor()
  const everything = await page.getByTestId('api-count').innerText()

  await page.getByTestId('api-search').fill('post /api/clients')
  await expect.poll(async () => await page.getByTestId('api-count').innerText()).not.toBe(everything)
  expect(await page.getByTestId('api-tag-atlas').count()).toBe(0)

  const create = page.getByTestId('api-operation-postClients')
  await create.getByRole('button').first().click()
  await create.getByText('Minimum role: operator.').waitFor()
  const body = await create.innerText()
  // The heading is upper-cased by its style: innerText shows it so.
  expect(body).toMatch(/Body \(JSON, required\)/i)
  expect(body).toMatch(/name\s*string\s*required/)
  expect(body).toContain('domains')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('api-download').click()])
  expect(download.suggestedFilename()).toBe('synedre-openapi.json')
  expect(problems).toEqual([])
})
