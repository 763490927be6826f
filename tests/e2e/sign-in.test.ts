// A person at the hub: signs in, sees the automations, signs out; changes their password.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'
import { translator } from '../helpers/catalogs'

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
  // Vue's hydration sets each field back to its state: a field filled before it is emptied again.
  await hydrated(page)
  await page.getByLabel('Email').fill(FOUNDER.email)
  await page.getByLabel('Password').fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => page.getByTestId('login-error').textContent(), { timeout: 10_000 }).toContain('Wrong email or password.')

  await hydrated(page)
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

it('signs in from a form sent before the page\'s script took over, and lands on the page asked for', async () => {
  // No script at all: the form is the browser's own, as in the first second of a slow load.
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  try {
    await page.goto(`${hub.url}/login?redirect=/hub/health`)
    await page.getByLabel('Email').fill(FOUNDER.email)
    await page.getByLabel('Password').fill('wrong-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/login\?error=invalid_credentials/)
    expect(await page.getByTestId('login-error').textContent()).toContain('Wrong email or password.')
    await page.getByLabel('Email').fill(FOUNDER.email)
    await page.getByLabel('Password').fill(FOUNDER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/hub/health')
    expect(await page.locator('body').innerText()).not.toContain('Sign in to the hub')
  }
  finally {
    await context.close()
  }
})

it('says a refusal in the hub\'s language: a wrong password at sign-in and on the account page, in French', async () => {
  const t = translator('fr')
  const context = await browser.newContext({ viewport: { width: 1366, height: 800 } })
  await context.addCookies([{ name: 'hub-lang', value: 'fr', url: hub.url }])
  const page = await context.newPage()
  try {
    await page.goto(`${hub.url}/login`)
    await page.getByLabel(t('app.common.email')).fill(FOUNDER.email)
    await page.getByLabel(t('app.login.password')).fill('wrong-password')
    await page.getByRole('button', { name: t('app.login.submit') }).click()
    await expect.poll(() => page.getByTestId('login-error').textContent(), { timeout: 10_000 }).toContain(t('base.refusal.invalid_credentials'))

    await page.getByLabel(t('app.login.password')).fill(FOUNDER.password)
    await page.getByRole('button', { name: t('app.login.submit') }).click()
    await page.waitForURL('**/hub')
    await page.goto(`${hub.url}/hub/account`)
    const form = page.getByTestId('password-form')
    await form.getByLabel(t('app.account.current')).fill('not-the-current-one')
    await form.getByLabel(t('app.account.newPassword'), { exact: true }).fill('a quiet harbour at dusk 17')
    await form.getByLabel(t('app.account.again')).fill('a quiet harbour at dusk 17')
    await form.getByRole('button', { name: t('app.account.submit') }).click()
    await expect.poll(() => page.getByTestId('password-error').textContent(), { timeout: 10_000 }).toContain(t('base.refusal.wrong_current_password'))
  }
  finally {
    await context.close()
  }
})

it('changes the password from the account page: a weak one refused with the reason, the other sessions ended, the new one signs in', async () => {
  const person = { email: 'founder@studio.test', password: FOUNDER.password }
  const elsewhere = await signIn(hub.url, person.email, person.password)
  const page = await browser.newPage({ viewport: { width: 1366, height: 800 } })
  const errors: string[] = []
  page.on('pageerror', error => errors.push(error.message))
  await signInPage(page, hub.url, person)

  await page.getByTestId('user-menu').click()
  await page.getByRole('menuitem', { name: 'Account and password' }).click()
  await page.waitForURL('**/hub/account')
  await expect.poll(() => page.getByTestId('account-identity').textContent(), { timeout: 15_000 }).toContain(person.email)

  const form = page.getByTestId('password-form')
  await form.getByLabel('Current password').fill(person.password)
  await form.getByLabel('New password', { exact: true }).fill('aaaaaaaaaaaaaaaa')
  await form.getByLabel('New password again').fill('aaaaaaaaaaaaaaaa')
  await form.getByRole('button', { name: 'Change password' }).click()
  await expect.poll(() => page.getByTestId('password-error').textContent(), { timeout: 10_000 }).toContain('repeats a few characters')

  const next = 'a quiet harbour at dawn 42'
  await form.getByLabel('Current password').fill(person.password)
  await form.getByLabel('New password', { exact: true }).fill(next)
  await form.getByLabel('New password again').fill(next)
  await form.getByRole('button', { name: 'Change password' }).click()
  // The answer is the toast, or the form's error: a refusal fails here with its reason in the message.
  const answer = async () => (await page.getByText('Password changed').first().isVisible())
    ? 'changed'
    : (await page.getByTestId('password-error').isVisible() ? await page.getByTestId('password-error').textContent() : 'no answer yet')
  await expect.poll(answer, { timeout: 30_000 }).toBe('changed')
  await page.screenshot({ path: `${TESTS_TMP}/hub-account.png` })
  // This session goes on; the other one is over; the new password signs in.
  expect((await page.request.get(`${hub.url}/api/notifications`)).status()).toBe(200)
  expect((await fetch(`${hub.url}/api/notifications`, { headers: { cookie: elsewhere } })).status).toBe(401)
  await signIn(hub.url, person.email, next)
  expect(errors).toEqual([])
  await page.close()
})
