// A person at the hub: signs in, sees the automations, signs out.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { launchBrowser } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser

beforeAll(async () => {
  hub = await startHub()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

it('signs in, shows the automations with their cadence and outcome, and signs out', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 800 } })
  const errors: string[] = []
  page.on('pageerror', error => errors.push(error.message))

  await page.goto(`${hub.url}/hub`)
  await page.waitForURL('**/login')
  await page.getByLabel('Email').fill(FOUNDER.email)
  await page.getByLabel('Password').fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => page.getByTestId('login-error').textContent(), { timeout: 10_000 }).toContain('Wrong email or password.')

  await page.getByLabel('Password').fill(FOUNDER.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL('**/hub')
  const table = page.getByTestId('automations-table')
  await table.getByText('lock-guardian').waitFor()
  await expect.poll(() => table.textContent()).toContain('Every 15 minutes')
  expect(await table.getByTestId('run-outcome').first().textContent()).toMatch(/never run|ok|skipped|failed|running/)
  expect(await page.getByTestId('switch-lock-guardian').isEnabled()).toBe(true)
  for (const entry of ['Atlas inbox', 'Agents', 'Memory', 'Learning', 'Skills', 'Worksites', 'Health']) {
    await page.getByRole('link', { name: entry }).first().waitFor()
  }
  await page.screenshot({ path: `${TESTS_TMP}/hub-home.png` })

  await page.getByTestId('user-menu').click()
  await page.getByRole('menuitem', { name: 'Sign out' }).click()
  await page.waitForURL('**/login')
  await page.goto(`${hub.url}/hub`)
  await page.waitForURL('**/login')
  expect(errors).toEqual([])
})
