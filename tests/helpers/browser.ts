import { chromium, type Browser, type Locator, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Debian's chromium, headless, with the flags a closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** Signs a person in through the login page, as they would, and waits for the hub. */
export async function signInPage(page: Page, hubUrl: string, who: { email: string, password: string }): Promise<void> {
  await page.goto(`${hubUrl}/login`)
  // A click before Vue takes over the form submits it natively and never reaches /hub (seen under load).
  await hydrated(page)
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL('**/hub')
}

/** Collects what goes wrong on a page into `into`: uncaught exceptions and API answers of 400 or more. */
export function watchPage(page: Page, into: string[]): void {
  page.on('pageerror', error => into.push(`page error: ${error.message}`))
  page.on('response', (response) => {
    if (response.url().includes('/api/') && response.status() >= 400) into.push(`${response.status()} ${response.url()}`)
  })
}

/** A person's own page (a browser context of its own, so two people can be signed in at once), watched and signed in. */
export async function signedInPage(browser: Browser, hubUrl: string, who: { email: string, password: string }, errors: string[]): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  watchPage(page, errors)
  await signInPage(page, hubUrl, who)
  return page
}

/** Waits until the page is idle and Vue has taken over the server-rendered HTML. */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle')
  await page.waitForFunction(() => Boolean((document.querySelector('#__nuxt') as { __vue_app__?: unknown } | null)?.__vue_app__))
}

/** A Nuxt UI field's own control, whether the test id lands on its wrapper or on the element. */
export function formField(page: Page, testId: string, tag: 'input' | 'textarea' | ':is(input, textarea)' = ':is(input, textarea)'): Locator {
  return page.locator(`[data-testid="${testId}"] ${tag}, ${tag}[data-testid="${testId}"]`)
}
