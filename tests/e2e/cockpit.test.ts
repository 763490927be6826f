// The cockpit at a glance, in Debian's chromium against the real hub: every hub page at
// 1440 × 900 and 390 × 844 (every page of the hub, detail pages included) without horizontal overflow (the page, its panel and each card),
// console error, failed request or a second language; screenshots of the pages a studio
// reads daily (tests/.tmp/screens/); the branded 404 page for an unknown page, a missing
// message and a missing agent (their APIs answer 404); the Ctrl-K palette finding a
// message by its subject; notifications; the inbox's server pages; the home table's fit.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'
import { atlasInbox } from '#db/schema/atlas'
import { opsAlerts, opsWorkers } from '#db/schema/ops'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { syncAutomations } from '#layers/health/core/automations'
import { DEFAULT_CRONTAB, readCrontab } from '#automates/supervisor'
import { automates } from '#automates/registry'
import { eq, sql } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import { insertLedgerRows } from '#layers/ai/core/ledger'
import { hubPageRoutes, seedEveryPage } from './fixtures/every-page'
import { layerCatalog, telltales, type Lang, type Messages as Catalog } from './fixtures/languages'

const SCREENS = join(TESTS_TMP, 'screens')
const WIDE = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }
const SUBJECT = 'Quarterly invoice export misses the VAT column'
// UI words of each language, never user data: the words of the agents registry, reactor and
// agent pages (states, tier and family names included) from the agents catalog, a message cut
// at its placeholders ("{n} failed" gives "failed"), less the words both languages share.
const AGENTS_PAGES = ['registry', 'reactor', 'agent', 'states', 'tiers', 'families'] as const
const wordsOf = (catalog: Catalog): string[] => Object.values(catalog).flatMap(value => typeof value === 'string'
  ? value.split(/\{[^}]*\}/).map(part => part.trim()).filter(part => /\p{L}/u.test(part))
  : wordsOf(value))
const pageWords = (lang: Lang) => new Set(AGENTS_PAGES.flatMap(section => wordsOf((layerCatalog('agents', lang).agents as Catalog)[section] as Catalog)))
const englishWords = pageWords('en')
const frenchWords = pageWords('fr')
const AGENTS_EN = layerCatalog('agents', 'en') as { agents: { tiers: Record<string, string>, families: Record<string, string> } }
const AGENTS_FR = layerCatalog('agents', 'fr') as { agents: { tiers: Record<string, string>, families: Record<string, string> } }
const AGENTS_FRENCH = [...frenchWords].filter(word => !englishWords.has(word))
const AGENTS_ENGLISH = [...englishWords].filter(word => !frenchWords.has(word))
/** The registry and an agent's page, where those single words are the page's own labels. */
const AGENTS_WORD_PAGES = /^\/hub\/agents(\/(?!custom|runs|models|mcp|instructions)[^/]+)?$/
// And, from every catalog, the phrases only one language says (fixtures/languages.ts).
const TELLTALES = { en: telltales('en'), fr: telltales('fr') }

let hub: Hub
let browser: Browser
let cookie: string
let messageId: number
let escalatedId: number
let everyPage: string[]

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1' } })
  const database = await hubDatabase(hub)
  try {
    const db = database.db
    // The automations the home page lists, as the supervisor registers them (without running any).
    const entries = readCrontab(DEFAULT_CRONTAB)
    const definitions = new Map(await Promise.all(entries.map(async e => [e.automation, await automates[e.automation]!()] as const)))
    await syncAutomations(db, entries, name => definitions.get(name))
    // Enough messages for more than one page of the inbox (25 a page).
    for (let i = 1; i <= 27; i++) await classifiedMessage(db, { subject: `Routine request number ${String(i).padStart(2, '0')}`, body: 'Please update the footer.' })
    messageId = await classifiedMessage(db, { subject: SUBJECT, body: 'The export drops the VAT column since Monday.' })
    escalatedId = await classifiedMessage(db, { subject: 'Client portal refuses every login', body: 'Nobody can sign in.', status: 'escalated' })
    await db.update(atlasInbox).set({ needsHuman: true, statusReason: 'the agent could not reproduce it' }).where(eq(atlasInbox.messageId, escalatedId))
    // A fortnight of model calls, most of them free (the offline provider): the AI chart shows calls.
    await insertLedgerRows(db, Array.from({ length: 40 }, (_, i) => ({
      callId: randomUUID(), at: new Date(Date.now() - (i % 14) * 86_400_000), kind: 'completion' as const, provider: i % 4 === 0 ? 'mistral' : 'offline', via: 'api' as const,
      model: i % 4 === 0 ? 'mistral-small-latest' : 'offline', modelRequested: i % 4 === 0 ? 'mistral-small-latest' : 'offline', feature: i % 3 === 0 ? 'atlas_classify' : 'atlas_reply_draft', tenant: null, actor: null,
      attempt: 1, outcome: 'ok' as const, error: null, httpStatus: null, tokensIn: 1200 + i * 10, tokensOut: 300, reportedCostUsd: null, durationMs: 90, failoverChain: [],
    })))
    // More than a page of Activity (10 a page), by people whose names sort apart from their times.
    await db.execute(sql`insert into hub_audit (at, actor, action, target, details)
      select now() - n * interval '1 minute', 'reviewer-' || lpad((31 - n)::text, 2, '0') || '@studio.test', 'paging_probe', 'probe-' || n, '{}'
      from generate_series(1, 30) n`)
    await db.insert(opsAlerts).values({ kind: 'zombie_lease', subject: 'automate:atlas-collect', holder: 'host-a:4242', message: 'The lease of atlas-collect has no live holder since 20 minutes.' })
    // Two worker hosts: one heartbeating, one silent for 10 minutes (killed, or gone).
    await db.insert(opsWorkers).values([
      { id: 'w-live', host: 'worker-live', pid: 11, version: '0.1.0', mode: 'forever', running: 2, heartbeatEveryMs: 60_000 },
      { id: 'w-gone', host: 'worker-gone', pid: 12, version: '0.1.0', mode: 'forever', running: 1, heartbeatEveryMs: 60_000, startedAt: new Date(Date.now() - 3_600_000), heartbeatAt: new Date(Date.now() - 600_000) },
    ])
  }
  finally {
    await database.close()
  }
  mkdirSync(SCREENS, { recursive: true })
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${hub.url}${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return await response.json()
  }
  const seeding = await hubDatabase(hub)
  try {
    everyPage = await seedEveryPage(seeding.db, api, { messageId, founder: FOUNDER.email })
  }
  finally {
    await seeding.close()
  }
  browser = await launchBrowser()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

async function signedIn(viewport: { width: number, height: number }, lang?: Lang): Promise<{ context: BrowserContext, page: Page }> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  await signInPage(page, hub.url, FOUNDER)
  // Then the language a person picks in the account menu (the hub-lang cookie).
  if (lang) await context.addCookies([{ name: 'hub-lang', value: lang, url: hub.url }])
  return { context, page }
}

/** Console errors, page errors and failed requests while `work` runs. */
async function watching(page: Page, work: () => Promise<void>): Promise<string[]> {
  const problems: string[] = []
  const onPageError = (error: Error) => problems.push(`page error: ${error.message}`)
  const onConsole = (message: { type: () => string, text: () => string }) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`)
  }
  const onResponse = (response: { url: () => string, status: () => number }) => {
    if (response.url().startsWith(hub.url) && response.status() >= 400) problems.push(`${response.status()} ${response.url()}`)
  }
  // A navigation aborts the previous page's live streams: that is not a failure.
  const onFailed = (request: { url: () => string, failure: () => { errorText: string } | null }) => {
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`)
  }
  page.on('pageerror', onPageError)
  page.on('console', onConsole)
  page.on('response', onResponse)
  page.on('requestfailed', onFailed)
  try {
    await work()
  }
  finally {
    page.off('pageerror', onPageError)
    page.off('console', onConsole)
    page.off('response', onResponse)
    page.off('requestfailed', onFailed)
  }
  return problems
}

/** Every element wider than its box: the document, the panel bodies, each card. */
async function overflows(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const found: string[] = []
    // With the element that sticks out furthest, so a failure says what to mend.
    const culprit = (el: Element) => {
      const edge = el.getBoundingClientRect().right
      let worst: Element | null = null
      for (const child of Array.from(el.querySelectorAll('*'))) {
        const right = child.getBoundingClientRect().right
        if (right > edge + 1 && (!worst || right >= worst.getBoundingClientRect().right)) worst = child
      }
      if (!worst) return ''
      const text = (worst.textContent ?? '').trim().slice(0, 40)
      return ` (${worst.tagName.toLowerCase()}.${String(worst.className).split(' ').slice(0, 3).join('.')} "${text}")`
    }
    const check = (el: Element, name: string) => {
      if (el.scrollWidth > el.clientWidth + 1) found.push(`${name}: ${el.scrollWidth} > ${el.clientWidth}${culprit(el)}`)
    }
    check(document.documentElement, 'page')
    // The task board may not hide a column behind a scroll bar.
    document.querySelectorAll('[data-testid="worksites-board"]').forEach(el => check(el, 'task board'))
    document.querySelectorAll('[data-slot="body"]').forEach((el, i) => check(el, `panel body ${i}`))
    document.querySelectorAll('[data-slot="root"]').forEach((el) => {
      if (!el.querySelector(':scope > [data-slot="container"]')) return
      const title = el.querySelector('[data-slot="title"]')?.textContent?.trim()
      check(el, `card "${title ?? el.className.slice(0, 40)}"`)
    })
    return found
  })
}

/** The header's title when its words do not fit its box. */
async function clippedTitle(page: Page): Promise<string[]> {
  return await page.evaluate(() => Array.from(document.querySelectorAll('h1[data-slot="title"]'))
    .filter(el => el.scrollWidth > el.clientWidth + 1)
    .map(el => `title "${el.textContent?.trim()}" clipped: ${el.scrollWidth} > ${el.clientWidth}`))
}

/** The page's language: <html lang> (the expected one when given), and none of the other
 *  language's UI words (whole words) on the page, sidebar and menus included. */
async function languageProblems(page: Page, expected?: Lang, path?: string): Promise<string[]> {
  const lang = await page.evaluate(() => document.documentElement.lang)
  if (expected && lang !== expected) return [`html lang "${lang}", expected "${expected}"`]
  // The API page shows the routes' own document, which is English by design.
  if (path === '/hub/api') return []
  const text = await page.locator('body').innerText()
  const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  // The agents' single words (states, tiers) on the registry and agent pages; elsewhere a stored
  // value such as "failed" in a title the server writes is data: only whole phrases tell.
  const agentsWords = !path || AGENTS_WORD_PAGES.test(path) ? (lang === 'fr' ? AGENTS_ENGLISH : AGENTS_FRENCH) : []
  const words = [...agentsWords, ...(lang === 'fr' ? TELLTALES.en : TELLTALES.fr)]
  const foreign = words.filter(word => new RegExp(`(?<![\\p{L}\\d])${escape(word)}(?![\\p{L}\\d])`, 'u').test(text))
  return [...(lang === 'en' || lang === 'fr' ? [] : [`html lang "${lang}"`]), ...foreign.map(word => `"${word}" on a page in ${lang}`)]
}

// Screenshots of the pages a studio reads daily.
const SHOTS: Record<string, string> = { '/hub': 'home', '/hub/atlas': 'inbox', '/hub/agents': 'agents', '/hub/ai': 'ai', '/hub/health': 'health' }
const hubPages = () => everyPage.map(path => ({ path, shot: SHOTS[path] }))

it('walks every page file of the hub', () => {
  const missing = hubPageRoutes().filter(route => !everyPage.some(path => route.test(path)))
  expect(missing.map(String)).toEqual([])
})

describe.each([['wide', 'en', WIDE], ['phone', 'en', PHONE], ['wide', 'fr', WIDE], ['phone', 'fr', PHONE]] as const)('every hub page at %s width in %s', (label, lang, viewport) => {
  it(`fits ${viewport.width} px without a console error (a hydration mismatch included), a failed request or a second language`, async () => {
    const { context, page } = await signedIn(viewport, lang)
    const report: Record<string, string[]> = {}
    try {
      for (const { path, shot } of hubPages()) {
        const problems = await watching(page, async () => {
          await page.goto(`${hub.url}${path}`)
          await page.waitForLoadState('networkidle')
          // Charts and live parts render in the browser after hydration.
          await page.waitForTimeout(400)
        })
        problems.push(...await overflows(page), ...await languageProblems(page, lang, path))
        // A section's own name is never cut (a detail page's record name may end in an ellipsis).
        if (/^\/hub(\/[^/]+)?$/.test(path)) problems.push(...await clippedTitle(page))
        if (problems.length > 0) report[path] = problems
        if (shot) await page.screenshot({ path: join(SCREENS, `${shot}-${label}-${lang}.png`), fullPage: true })
      }
    }
    finally {
      await context.close()
    }
    expect(report).toEqual({})
  }, 300_000)
})

describe('the branded error page', () => {
  it.each([
    ['an unknown page', '/hub/no-such-page', null],
    ['a missing message', '/hub/atlas/999999', '/api/atlas/messages/999999'],
    ['a missing agent', '/hub/agents/no-such-agent', '/api/agents/no-such-agent'],
  ])('shows %s as a branded 404 with a way back, and its API answers 404', async (_, path, api) => {
    const { context, page } = await signedIn(WIDE)
    try {
      const response = await page.goto(`${hub.url}${path}`)
      expect(response?.status()).toBe(404)
      await page.getByTestId('hub-error').waitFor()
      expect(await page.getByTestId('hub-error-status').innerText()).toBe('404')
      expect(await page.locator('body').innerText()).not.toMatch(/\[GET\]|Page not found: \/|statusCode/)
      // The button's handler exists only once Vue has hydrated; a loaded machine clicked before it did.
      await hydrated(page)
      await page.getByTestId('hub-error-back').click()
      await page.waitForURL(/\/hub$/)
      await page.getByTestId('automations-table').waitFor()
    }
    finally {
      await context.close()
    }
    if (api) {
      const answer = await fetch(`${hub.url}${api}`, { headers: { cookie } })
      expect(answer.status).toBe(404)
      expect((await answer.json()).data.code).toMatch(/not_found|unknown_agent/)
    }
  })
})

describe('the dashboard conventions', () => {
  let context: BrowserContext
  let page: Page
  beforeAll(async () => {
    ({ context, page } = await signedIn(WIDE))
  })
  afterAll(async () => {
    await context?.close()
  })

  it('finds a message by its subject with Ctrl-K and opens it', async () => {
    await page.goto(`${hub.url}/hub`)
    await page.waitForLoadState('networkidle')
    // The shortcut exists only once Vue has hydrated (later under load, the catalogs loading first).
    await hydrated(page)
    await page.keyboard.press('Control+k')
    const search = page.getByPlaceholder('Pages, agents, messages, notes…')
    await search.waitFor()
    await search.fill('VAT column')
    const hit = page.getByRole('option', { name: new RegExp(SUBJECT) })
    await hit.waitFor()
    await hit.click()
    await page.waitForURL(`**/hub/atlas/${messageId}`)
    await page.getByTestId('atlas-headers').waitFor()
    // The detail page's trail leads back.
    expect(await page.getByTestId('breadcrumbs').innerText()).toContain('Atlas inbox')
  })

  it('shows each host\'s spawn workers on the health page, and the host that went silent', async () => {
    // The page walks above take minutes: the live host beats now, as it would have all along.
    const database = await hubDatabase(hub)
    try {
      await database.db.update(opsWorkers).set({ heartbeatAt: new Date() }).where(eq(opsWorkers.id, 'w-live'))
    }
    finally {
      await database.close()
    }
    await page.goto(`${hub.url}/hub/health`)
    const table = page.getByTestId('workers-table')
    await table.getByText('worker-live').waitFor()
    const rows = await table.locator('tbody tr').allInnerTexts()
    expect(rows.find(row => row.includes('worker-live'))).toMatch(/working[\s\S]*2[\s\S]*0\.1\.0/)
    expect(rows.find(row => row.includes('worker-gone'))).toMatch(/silent/)
    expect(await page.getByTestId('workers-silent').innerText()).toContain('worker-gone')
  })

  it('finds an agent and a page with the palette, from the sidebar button too', async () => {
    await page.goto(`${hub.url}/hub/health`)
    await page.getByTestId('hub-search-button').click()
    const search = page.getByPlaceholder('Pages, agents, messages, notes…')
    await search.fill('orchestr')
    await page.getByRole('option', { name: /orchestrator/ }).first().waitFor()
    await search.fill('AI')
    await page.getByRole('option', { name: /^AI/ }).first().click()
    await page.waitForURL('**/hub/ai')
  })

  it('lists open alerts and messages waiting for a person in the notifications slideover', async () => {
    await page.goto(`${hub.url}/hub/skills`)
    await page.getByTestId('hub-notifications-button').click()
    const panel = page.getByRole('dialog')
    await panel.getByText('The lease of atlas-collect has no live holder since 20 minutes.').waitFor()
    await panel.getByText('Client portal refuses every login').click()
    await page.waitForURL(`**/hub/atlas/${escalatedId}`)
  })

  it('pages and sorts the Atlas inbox on the server', async () => {
    await page.goto(`${hub.url}/hub/atlas`)
    const table = page.getByTestId('atlas-inbox')
    await page.getByTestId('table-pagination').waitFor()
    // 29 messages of this file's own and the question the page walk's records came from.
    expect(await page.getByTestId('table-pagination').innerText()).toContain('1–25 of 30')
    expect(await table.locator('tbody tr').count()).toBe(25)
    await page.getByTestId('table-pagination').getByRole('button', { name: /page 2/i }).click()
    await page.waitForURL(/page=2/)
    await expect.poll(() => table.locator('tbody tr').count()).toBe(5)
    // The link shared: opened afresh (rendered by the server, then hydrated), it shows page 2.
    await page.goto(page.url())
    await page.getByTestId('table-pagination').waitFor()
    await expect.poll(() => page.getByTestId('table-pagination').innerText(), { timeout: 10_000 }).toContain('26–30 of 30')
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 10_000 }).toBe(5)
    await page.getByRole('button', { name: 'Sort by Subject' }).click()
    await page.waitForURL(/sort=subject/)
    // A new order starts again from the first page: the subjects come alphabetically.
    await expect.poll(async () => (await table.locator('tbody tr').first().innerText()), { timeout: 15_000 }).toContain('Client portal refuses every login')
  })

  it('pages and sorts Activity on the server, page, size and order in the URL', async () => {
    await page.goto(`${hub.url}/hub/activity?action=paging_probe`)
    const table = page.getByTestId('activity-table')
    const pagination = page.getByTestId('table-pagination')
    await pagination.waitFor()
    await hydrated(page)
    expect(await pagination.innerText()).toContain('1–25 of 30')
    // Newest first: the probe of a minute ago.
    await expect.poll(() => table.locator('tbody tr').first().innerText()).toContain('reviewer-30@studio.test')
    await pagination.getByRole('button', { name: /page 2/i }).click()
    await page.waitForURL(/page=2/)
    await expect.poll(() => pagination.innerText()).toContain('26–30 of 30')
    await expect.poll(() => table.locator('tbody tr').first().innerText()).toContain('reviewer-05@studio.test')
    // The link shared: opened afresh (rendered by the server, then hydrated), it shows page 2.
    await page.goto(page.url())
    await pagination.waitFor()
    await expect.poll(() => pagination.innerText(), { timeout: 10_000 }).toContain('26–30 of 30')
    expect(new URL(page.url()).searchParams.get('page')).toBe('2')
    await hydrated(page)

    // Sorting by Who goes back to page 1, in the server's order (A to Z first, then Z to A).
    await page.getByRole('button', { name: 'Sort by Who' }).click()
    await page.waitForURL(url => url.searchParams.get('sort') === 'actor' && url.searchParams.get('dir') === 'asc' && !url.searchParams.has('page'))
    await expect.poll(() => table.locator('tbody tr').first().innerText()).toContain('reviewer-01@studio.test')
    await page.getByRole('button', { name: 'Sort by Who' }).click()
    await page.waitForURL(url => url.searchParams.get('dir') === 'desc')
    await expect.poll(() => table.locator('tbody tr').first().innerText()).toContain('reviewer-30@studio.test')
    await pagination.getByRole('button', { name: /page 2/i }).click()
    await page.waitForURL(/page=2/)
    await expect.poll(() => table.locator('tbody tr').first().innerText()).toContain('reviewer-05@studio.test')
    await expect.poll(() => table.locator('tbody tr').count()).toBe(5)

    // The CSV is the whole selection in that order.
    const href = await page.getByTestId('activity-csv').getAttribute('href')
    const csv = await (await page.request.get(`${hub.url}${href}`)).text()
    const lines = csv.trim().split('\r\n')
    expect(lines).toHaveLength(31)
    expect(lines[1]).toContain('reviewer-30@studio.test')

    // A bigger page holds them all.
    await pagination.getByRole('combobox', { name: 'Rows per page' }).click()
    await page.getByRole('option', { name: '50 / page' }).click()
    await page.waitForURL(url => url.searchParams.get('pageSize') === '50' && !url.searchParams.has('page'))
    await expect.poll(() => table.locator('tbody tr').count()).toBe(30)
  })

  it('keeps a table it pages in the browser (the agents registry) paged and sorted in the URL', async () => {
    await page.goto(`${hub.url}/hub/agents`)
    const table = page.getByTestId('agents-table')
    await page.getByTestId('table-pagination').waitFor()
    await page.getByRole('button', { name: 'Sort by Agent' }).click()
    await page.waitForURL(url => url.searchParams.get('sort') === 'nickname')
    const firstOfPage1 = await table.locator('tbody tr').first().innerText()
    await page.getByTestId('table-pagination').getByRole('button', { name: /page 2/i }).click()
    await page.waitForURL(/page=2/)
    const firstOfPage2 = await table.locator('tbody tr').first().innerText()
    expect(firstOfPage2).not.toBe(firstOfPage1)
    // The link shared: opened afresh, the same page in the same order.
    await page.goto(page.url())
    await page.getByTestId('table-pagination').waitFor()
    await expect.poll(() => table.locator('tbody tr').first().innerText(), { timeout: 10_000 }).toBe(firstOfPage2)
    expect(new URL(page.url()).searchParams.get('page')).toBe('2')
  })

  it('fits the home automations table in its card at 1280 px, and a toggle updates "Automations on"', async () => {
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${hub.url}/hub`)
    const table = page.getByTestId('automations-table')
    await table.waitFor()
    const fit = await table.evaluate(el => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    expect(fit.scroll).toBeLessThanOrEqual(fit.client + 1)
    const counter = page.getByTestId('stat-value-Automations on')
    const before = await counter.innerText()
    const total = Number(/(\d+)\s*\/\s*(\d+)/.exec(before)![2])
    expect(before).toMatch(new RegExp(`${total}\\s*/\\s*${total}`))
    await page.getByTestId('switch-atlas-collect').click()
    await expect.poll(() => counter.innerText()).toMatch(new RegExp(`${total - 1}\\s*/\\s*${total}`))
    await page.getByTestId('switch-atlas-collect').click()
    await expect.poll(() => counter.innerText()).toMatch(new RegExp(`${total}\\s*/\\s*${total}`))
    await page.setViewportSize(WIDE)
  })

  it('shows the agents pages in one language, English or French, tier names included', async () => {
    // The language is the hub's one choice, the `hub-lang` cookie the account menu sets.
    const choose = (lang: 'en' | 'fr') => context.addCookies([{ name: 'hub-lang', value: lang, url: hub.url }])
    await page.goto(`${hub.url}/hub/agents/orchestrator`)
    await page.getByTestId('agent-tier-metier').waitFor()
    expect(await page.getByTestId('agent-tier-metier').innerText()).toContain(AGENTS_EN.agents.tiers.metier)
    expect(await languageProblems(page)).toEqual([])
    await choose('fr')
    await page.reload()
    await page.getByTestId('agent-tier-metier').waitFor()
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('fr')
    expect(await page.getByTestId('agent-tier-metier').innerText()).toContain(AGENTS_FR.agents.tiers.metier)
    expect(await languageProblems(page)).toEqual([])
    // The choice follows to the registry, then back to English.
    await page.goto(`${hub.url}/hub/agents`)
    await page.getByTestId('reactor-family-legend').waitFor()
    expect(await page.getByTestId('reactor-family-legend').innerText()).toContain(AGENTS_FR.agents.families.cadrage)
    expect(await languageProblems(page)).toEqual([])
    await choose('en')
    await page.reload()
    await expect.poll(() => page.getByTestId('reactor-family-legend').innerText()).toContain(AGENTS_EN.agents.families.cadrage)
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en')
    expect(await languageProblems(page)).toEqual([])
  })

  it('draws on the reactor only the agents the registry lists', async () => {
    await page.goto(`${hub.url}/hub/agents?family=validation`)
    await page.getByTestId('reactor').waitFor()
    const listed = await page.getByTestId('agents-table').locator('tbody tr').count()
    const drawn = page.locator('[data-testid^="reactor-node-"]')
    await expect.poll(() => drawn.count()).toBeGreaterThan(0)
    expect(await page.locator('[data-testid="reactor-ring-1"] [data-testid^="reactor-node-"]').count()).toBe(0)
    expect(await page.locator('[data-testid="reactor-ring-2"] [data-testid^="reactor-node-"]').count()).toBe(0)
    expect(await drawn.count()).toBeLessThanOrEqual(listed)
  })

  it('shows the signed-in person\'s name, full e-mail and role in the user menu', async () => {
    await page.goto(`${hub.url}/hub`)
    expect(await page.getByTestId('user-role').innerText()).toBe('founder')
    await page.getByTestId('user-menu').click()
    const menu = page.getByRole('menu')
    await menu.getByText(FOUNDER.email, { exact: true }).waitFor()
    const email = menu.getByText(FOUNDER.email, { exact: true })
    const box = await email.evaluate(el => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    expect(box.scroll).toBeLessThanOrEqual(box.client)
    await page.keyboard.press('Escape')
  })
})
