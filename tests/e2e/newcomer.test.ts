// A newcomer's first hour on the embedded default, in chromium: no mailbox is configured and
// the hub says so; a test message written (or pasted) in the hub goes through the pipeline
// (offline provider) and appears in the inbox; the Activity page shows who sent it (and its
// CSV); the home page shows the collector `not configured` as soon as it runs, without a
// reload, and its run log one click away.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signInPage, watchPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'
import { runTs } from '../helpers/processes'

// No mailbox, the offline model, the spawn engine off: a fresh checkout's defaults; one named
// deploy command for the client form to offer.
const ENV = { ATLAS_IMAP_HOST: '', AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1', SPAWN_DEPLOY_COMMANDS: '{"static-site":"echo static {tenant}"}' }

let hub: Hub
let browser: Browser
let page: Page
const problems: string[] = []

beforeAll(async () => {
  // The supervisor registers the collector but never fires it during the test (1 January only):
  // the test runs it by hand, through the same wrapper.
  const crontab = join(TESTS_TMP, `newcomer-crontab-${process.pid}`)
  writeFileSync(crontab, '0 0 1 1 * $SYNEDRE_HOME/scripts/automate atlas-collect\n')
  hub = await startHub({ args: ['--crontab', crontab], env: ENV })
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

async function inboxRow(subject: string) {
  const row = page.getByTestId('atlas-inbox').locator('tr', { hasText: subject })
  await row.waitFor({ timeout: 30_000 })
  const href = await row.getByRole('link', { name: subject }).getAttribute('href')
  return { row, messageId: Number(href!.split('/').at(-1)) }
}

it('with no mailbox the inbox says so; a test message written in the hub is classified, listed, and its Activity row names who sent it', async () => {
  await page.goto(`${hub.url}/hub/atlas`)
  expect(await page.getByTestId('atlas-mailbox-status').innerText()).toContain('No mailbox is configured: no mail comes in')
  expect(await page.getByTestId('atlas-mailbox-status').innerText()).toContain('ATLAS_IMAP_HOST')
  expect(await page.getByTestId('atlas-inbox-empty').innerText()).toContain('no mailbox is configured')

  const subject = `The contact form no longer sends ${Date.now()}`
  await page.getByTestId('atlas-test-message').click()
  await page.getByTestId('test-message-subject').fill(subject)
  await page.getByTestId('test-message-send').click()
  const { row, messageId } = await inboxRow(subject)
  // An unauthenticated sender's request waits for a person (noise and advice never do).
  await row.getByText(/classified|awaiting approval/).waitFor()
  expect(await row.innerText()).toContain('camille@client.example')

  // The palette (Ctrl-K) finds it by its subject.
  await page.keyboard.press('Control+k')
  const search = page.getByPlaceholder('Pages, agents, messages, notes…')
  await search.waitFor()
  await search.fill(subject)
  await page.getByRole('option', { name: new RegExp(subject) }).waitFor()
  await page.keyboard.press('Escape')

  await page.goto(`${hub.url}/hub/activity`)
  await page.getByTestId('activity-actor').fill(FOUNDER.email)
  const activity = page.getByTestId('activity-table').locator('tr', { hasText: `message #${messageId}` }).filter({ hasText: 'received' })
  await activity.waitFor()
  expect(await activity.innerText()).toContain(FOUNDER.email)

  // The same selection as CSV.
  const csv = await page.request.get(`${hub.url}/api/activity?format=csv&actor=${encodeURIComponent(FOUNDER.email)}`)
  expect(csv.status()).toBe(200)
  expect(csv.headers()['content-type']).toContain('text/csv')
  expect(await csv.text()).toMatch(new RegExp(`"${FOUNDER.email.replace(/\./g, '\\.')}","received","message #${messageId}"`))
  expect(problems).toEqual([])
})

it('a pasted .eml goes through the same pipeline', async () => {
  await page.goto(`${hub.url}/hub/atlas`)
  const subject = `Quote for a new landing page ${Date.now()}`
  await page.getByTestId('atlas-test-message').click()
  await page.getByRole('tab', { name: 'Paste an .eml' }).click()
  await page.getByTestId('test-message-eml').fill([
    'From: Jordan Lee <jordan@prospect.example>',
    'To: atlas@studio.example',
    `Subject: ${subject}`,
    `Message-ID: <pasted-${Date.now()}@prospect.example>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello, could you send us a quote for a new landing page?',
    '',
  ].join('\r\n'))
  await page.getByTestId('test-message-send').click()
  const { row } = await inboxRow(subject)
  await row.getByText(/classified|awaiting approval/).waitFor()
  expect(await row.innerText()).toContain('jordan@prospect.example')
  expect(problems).toEqual([])
})

it('the home page shows the collector "not configured" as soon as it runs, without a reload, and its run log', async () => {
  await page.goto(`${hub.url}/hub`)
  await page.getByTestId('home-live').getByText('live').waitFor()
  const row = page.getByTestId('automations-table').locator('tr', { hasText: 'atlas-collect' })
  await row.waitFor()

  const run = await runTs('automates/run.ts', ['atlas-collect'], { env: { DATA_DIR: hub.dataDir, ...ENV } })
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain('ATLAS_IMAP_HOST is not set')

  // Pushed by the server-sent events: no reload.
  await row.getByText('not configured').waitFor({ timeout: 15_000 })
  expect(await row.getByTestId('run-outcome-variable').innerText()).toBe('set ATLAS_IMAP_HOST')
  expect(await page.getByTestId('stat-value-Not configured').innerText()).toBe('1')

  await page.getByTestId('run-log-atlas-collect').click()
  await page.waitForURL('**/hub/health/automations/atlas-collect')
  const output = page.getByTestId('run-output').first()
  await output.waitFor()
  expect(await output.innerText()).toContain('set ATLAS_IMAP_HOST: no mailbox to poll')
  expect(await output.innerText()).toContain('ATLAS_IMAP_HOST is not set: no mailbox to poll')
  expect(await page.getByTestId('run-log').innerText()).toContain('not configured')
  expect(problems).toEqual([])

  const missing = await page.request.get(`${hub.url}/api/automations/no-such-automate/runs`)
  expect(missing.status()).toBe(404)
  expect((await missing.json()).data).toEqual({ code: 'not_found', message: expect.any(String) })
})

it('adds the studio\'s first client from the Clients page, and a second one claiming its domain is told who owns it', async () => {
  problems.length = 0
  await page.goto(`${hub.url}/hub/clients`)
  // The button's handler exists only once Vue has hydrated.
  await hydrated(page)
  await page.getByTestId('client-add').click()
  await page.getByTestId('client-name').fill('Maison Bleue')
  await page.getByTestId('client-domains').fill('maison-bleue.example')
  await page.getByTestId('client-repository').fill('https://forge.example/bleue/site.git')
  await page.getByTestId('client-branch').fill('preprod')
  // The deploy is picked by name among the environment's commands, never typed.
  await page.getByTestId('client-deploy').click()
  await page.getByRole('option', { name: 'static-site' }).click()
  await page.getByTestId('client-save').click()
  const row = page.getByTestId('clients-table').locator('tr', { hasText: 'Maison Bleue' })
  await row.waitFor({ timeout: 15_000 })
  const text = await row.innerText()
  expect(text).toContain('maison-bleue.example')
  expect(text).toContain('preprod')
  expect(text).toContain('deploy: static-site')
  // A second client claiming the same domain is told who owns it, in the form.
  await page.getByTestId('client-add').click()
  await page.getByTestId('client-name').fill('Maison Rivale')
  await page.getByTestId('client-domains').fill('maison-bleue.example')
  await page.getByTestId('client-save').click()
  await page.getByTestId('client-form-error').getByText('already belongs to Maison Bleue').waitFor({ timeout: 15_000 })
  // The refused save is a 409 the page expected (its response and the browser's console line about it).
  expect(problems.filter(problem => !/\b409\b/.test(problem))).toEqual([])
})

it('invites the studio\'s first operator from the People page; the operator opens the link, sets a password and is in, without the People entry', async () => {
  problems.length = 0
  await page.goto(`${hub.url}/hub`)
  await page.getByRole('link', { name: 'People' }).first().click()
  await page.waitForURL('**/hub/people')
  await hydrated(page)
  await page.getByTestId('person-add').click()
  await formField(page, 'person-email', 'input').fill('opal@studio.test')
  await formField(page, 'person-name', 'input').fill('Opal')
  // The defaults: the operator role, by a one-time link.
  await page.getByTestId('person-save').click()
  const url = await formField(page, 'person-link-url', 'input').inputValue({ timeout: 15_000 })
  expect(url).toMatch(new RegExp(`^${hub.url}/welcome/[\\w-]{43}$`))
  await page.getByRole('button', { name: 'Done' }).click()
  const row = page.getByTestId('people-table').locator('tr', { hasText: 'opal@studio.test' })
  await row.waitFor()
  expect(await row.innerText()).toMatch(/operator[\s\S]*invited/)
  expect(problems).toEqual([])

  // The operator, in a browser of their own.
  const theirs: string[] = []
  const operator = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  watchPage(operator, theirs)
  try {
    await operator.goto(url)
    await hydrated(operator)
    expect(await operator.getByTestId('link-owner').innerText({ timeout: 15_000 })).toContain('opal@studio.test')
    await formField(operator, 'link-password', 'input').fill('opal-first-day-phrase-1')
    await formField(operator, 'link-confirmation', 'input').fill('opal-first-day-phrase-1')
    await operator.getByTestId('link-submit').click()
    await operator.waitForURL('**/hub')
    expect(await operator.getByTestId('user-role').innerText()).toBe('operator')
    expect(await operator.getByRole('link', { name: 'People' }).count()).toBe(0)
    expect(theirs).toEqual([])
    // The link worked once: opened again, it says so.
    await operator.goto(url)
    await operator.getByTestId('link-refused').getByText('already used').waitFor({ timeout: 15_000 })
  }
  finally {
    await operator.context().close()
  }
  await page.reload()
  expect(await page.getByTestId('people-table').locator('tr', { hasText: 'opal@studio.test' }).innerText()).not.toContain('invited')
})
