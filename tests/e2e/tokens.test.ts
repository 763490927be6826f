// A person makes a personal access token from the account page: names it, gives it Atlas read,
// copies the secret shown once; a script with it (and no cookie) reads the inbox; the person
// revokes it after a confirmation and the script is refused at once.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signedInPage } from '../helpers/browser'

let hub: Hub
let browser: Browser

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

const inbox = (secret: string) => fetch(`${hub.url}/api/atlas/inbox`, { headers: { authorization: `Bearer ${secret}` } })

it('creates a token with its scopes, shows the secret once, and revokes it', async () => {
  const errors: string[] = []
  const page = await signedInPage(browser, hub.url, FOUNDER, errors)
  await page.goto(`${hub.url}/hub/account`)
  await hydrated(page)
  await page.getByTestId('token-create').click()
  await formField(page, 'token-name').fill('e2e script')
  await page.getByTestId('token-scope-atlas').click()
  await page.getByRole('option', { name: 'read', exact: true }).click()
  await page.getByTestId('token-submit').click()
  await page.getByTestId('token-secret').waitFor()
  const secret = await page.getByLabel('The token').inputValue()
  expect(secret).toMatch(/^syn_[\w-]{43}$/)
  expect((await inbox(secret)).status).toBe(200)

  await page.getByRole('button', { name: 'Done' }).click()
  const table = page.getByTestId('tokens-table')
  await table.getByText('e2e script').waitFor()
  await expect.poll(() => table.textContent()).toContain('atlas:read')
  expect(await table.textContent()).not.toContain(secret)
  await table.getByRole('button', { name: 'Revoke e2e script' }).click()
  await page.getByTestId('token-revoke-confirm').click()
  await expect.poll(() => table.textContent(), { timeout: 10_000 }).toContain('revoked')
  expect((await inbox(secret)).status).toBe(401)
  expect(errors).toEqual([])
})
