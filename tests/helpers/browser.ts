import { chromium, type Browser, type Locator, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Debian's chromium, headless, with the flags a closed network needs. Its pages' `goto` and
 * `reload` return once Nuxt has hydrated the page: a click or a fill before that lands on the
 * server's HTML, and hydration then drops it (a click that does nothing, a field emptied again).
 * A context without JavaScript keeps the plain `goto`: its page never hydrates.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const newPage = browser.newPage.bind(browser)
  const newContext = browser.newContext.bind(browser)
  browser.newPage = async (options) => {
    const page = await newPage(options)
    return options?.javaScriptEnabled === false ? page : loadsHydrated(page)
  }
  browser.newContext = async (options) => {
    const context = await newContext(options)
    if (options?.javaScriptEnabled === false) return context
    const contextPage = context.newPage.bind(context)
    context.newPage = async () => loadsHydrated(await contextPage())
    return context
  }
  return browser
}

function loadsHydrated(page: Page): Page {
  const goto = page.goto.bind(page)
  const reload = page.reload.bind(page)
  page.goto = async (url, options) => {
    const response = await goto(url, options)
    if (options?.waitUntil !== 'commit') await appHydrated(page)
    return response
  }
  page.reload = async (options) => {
    const response = await reload(options)
    if (options?.waitUntil !== 'commit') await appHydrated(page)
    return response
  }
  return page
}

/** Nuxt is done hydrating the page (`isHydrating` turns false at app:suspense:resolve); a page without the app (a JSON answer) at once. */
async function appHydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const root = document.querySelector('#__nuxt') as (Element & { __vue_app__?: { $nuxt?: { isHydrating?: boolean } } }) | null
    return !root || root.__vue_app__?.$nuxt?.isHydrating === false
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
export async function signedInPage(
  browser: Browser,
  hubUrl: string,
  who: { email: string, password: string },
  errors: string[],
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  watchPage(page, errors)
  await signInPage(page, hubUrl, who)
  return page
}

/** Waits until the page is idle and Vue has taken over the server-rendered HTML. */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle')
  await appHydrated(page)
}

/** A Nuxt UI field's own control, whether the test id lands on its wrapper or on the element. */
export function formField(page: Page, testId: string, tag: 'input' | 'textarea' | ':is(input, textarea)' = ':is(input, textarea)'): Locator {
  return page.locator(`[data-testid="${testId}"] ${tag}, ${tag}[data-testid="${testId}"]`)
}
