// Worksites in a browser, against the real hub (issue 16, the hub half): an operator creates a
// project after reading the memory's recall, promotes a chantier draft into a planned chantier
// with two jobs, moves a task across the board by drag and drop and by keyboard (an illegal
// drop is refused with the allowed statuses), rejects another draft with a reason and sees the
// classifier calibration count it; a viewer sees the board without any control.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'
import { recordFromMessage } from '#layers/worksites/tests/fixtures/world'

interface Vocabulary {
  entities: Record<string, { statuses: Array<{ value: string, label: string }>, transitions: Record<string, string[]> }>
}

let hub: Hub
let browser: Browser
let cookies: Record<'founder' | 'operator' | 'viewer', string>
let operator: { context: BrowserContext, page: Page }
let vocabulary: Vocabulary
const drafts: Record<'promoted' | 'rejected', string> = { promoted: '', rejected: '' }
const records: Record<'question' | 'run', string> = { question: '', run: '' }
let projectId = ''
const PROJECT = 'Bakery storefront'
const PROMOTED = 'Rebuild the bakery website'
const REJECTED = 'Order forty croissants for Friday'

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  const database = await hubDatabase(hub)
  try {
    // As the classifier leaves them: a classified message and the record it materialised.
    drafts.promoted = (await recordFromMessage(database.db, 'chantier', { subject: PROMOTED })).record.id
    drafts.rejected = (await recordFromMessage(database.db, 'chantier', { subject: REJECTED })).record.id
    records.question = (await recordFromMessage(database.db, 'question', { subject: 'Is our cookie banner compliant?' })).record.id
    records.run = (await recordFromMessage(database.db, 'run', { subject: 'Renew the TLS certificate' })).record.id
  }
  finally {
    await database.close()
  }
  cookies = await signInEveryRole(hub)
  vocabulary = await (await fetch(`${hub.url}/api/worksites/vocabulary`, { headers: { cookie: cookies.viewer } })).json() as Vocabulary
  mkdirSync(SCREENS, { recursive: true })
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  await signInPage(page, hub.url, { email: 'operator@studio.test', password: 'operator-password-123' })
  operator = { context, page }
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

const api = async <T>(path: string, cookie = cookies.operator): Promise<T> => {
  const response = await fetch(`${hub.url}${path}`, { headers: { cookie } })
  expect(response.status, path).toBe(200)
  return await response.json() as T
}
const field = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"] :is(input, textarea), :is(input, textarea)[data-testid="${testId}"]`)
const column = (page: Page, status: string) => page.locator(`[data-testid="board-column"][data-column="${status}"]`)
const card = (page: Page, title: string) => page.getByTestId('board-card').filter({ hasText: title })
const taskStatus = async (title: string) => {
  const { items } = await api<{ items: Array<{ title: string, status: string }> }>(`/api/worksites/tasks?projectId=${projectId}&limit=200`)
  return items.find(task => task.title === title)?.status
}
// Grabbed by its lower line (chantier › job), away from the title's link.
const drag = async (page: Page, title: string, status: string) => {
  const source = card(page, title)
  const box = (await source.boundingBox())!
  await source.dragTo(column(page, status), { sourcePosition: { x: 12, y: box.height - 8 } })
}
const POLL = { timeout: 15_000 }
/** Opens a hub page and waits until it is hydrated (a click before that does nothing; the machine may be slow). */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(`${hub.url}${path}`)
  await page.waitForLoadState('networkidle')
  await page.waitForFunction(() => Boolean((document.querySelector('#__nuxt') as { __vue_app__?: unknown } | null)?.__vue_app__))
}
// Screenshots of the pages for a person to look at (tests/.tmp/screens/worksites-*.png).
const SCREENS = join(TESTS_TMP, 'screens')
const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENS, `worksites-${name}.png`), fullPage: true })
const label = (status: string) => vocabulary.entities.task!.statuses.find(s => s.value === status)?.label ?? status

describe('an operator', () => {
  it('creates a project after the memory\'s recall', async () => {
    const { page } = operator
    await open(page, '/hub/worksites')
    await page.getByTestId('worksites-new-project').click()
    await field(page, 'item-title').fill(PROJECT)
    await field(page, 'item-body').fill('The bakery\'s site: orders online, opening hours, the shop\'s story.')
    // Nothing is saved before the recall has been read.
    await page.getByTestId('item-check').click()
    await page.getByTestId('worksites-recall').waitFor()
    await shot(page, 'new-project')
    await page.getByTestId('item-save').click()
    await page.waitForURL(/\/hub\/worksites\/projects\/[0-9a-f-]+/)
    projectId = page.url().split('/projects/')[1]!.split('?')[0]!
    await page.getByTestId('worksites-board').waitFor()
  })

  it('promotes a chantier draft into a planned chantier with two jobs', async () => {
    const { page } = operator
    await open(page, '/hub/worksites/drafts')
    const draft = page.locator(`[data-draft="${drafts.promoted}"]`)
    await draft.getByTestId('draft-promote').click()
    const form = page.getByTestId('worksites-promote-form')
    await form.getByTestId('promote-project').click()
    await page.getByRole('option', { name: PROJECT }).click()
    await field(page, 'promote-job-title').nth(0).fill('Design')
    await field(page, 'promote-job-tasks').nth(0).fill('Mock the home page\nPick the fonts')
    await page.getByTestId('promote-add-job').click()
    await field(page, 'promote-job-title').nth(1).fill('Build')
    await field(page, 'promote-job-tasks').nth(1).fill('Set up the order form')
    await shot(page, 'promote')
    await page.getByTestId('promote-submit').click()
    await page.waitForURL(/\/hub\/worksites\/chantiers\/[0-9a-f-]+/)
    await expect.poll(() => page.getByTestId('jobs-table').locator('tbody tr').count(), POLL).toBe(2)
    expect(await page.getByTestId('worksites-status').innerText()).toBe(vocabulary.entities.chantier!.statuses.find(s => s.value === 'planned')!.label)

    await shot(page, 'chantier')
    const chantierId = page.url().split('/chantiers/')[1]!.split('?')[0]!
    const chantier = await api<{ status: string, projectId: string }>(`/api/worksites/chantiers/${chantierId}`)
    expect(chantier).toMatchObject({ status: 'planned', projectId })
    const { items: jobs } = await api<{ items: Array<{ title: string }> }>(`/api/worksites/jobs?chantierId=${chantierId}`)
    expect(jobs.map(job => job.title).sort()).toEqual(['Build', 'Design'])
    const { items: left } = await api<{ items: Array<{ id: string }> }>('/api/worksites/drafts')
    expect(left.map(d => d.id)).toEqual([drafts.rejected])
  })

  it('moves a task across the board by drag and drop, and refuses an illegal drop naming the allowed statuses', async () => {
    const { page } = operator
    await open(page, `/hub/worksites/projects/${projectId}`)
    const initial = vocabulary.entities.task!.statuses[0]!.value
    await column(page, initial).getByText('Mock the home page').waitFor()
    const allowed = vocabulary.entities.task!.transitions[initial] ?? []
    const statuses = vocabulary.entities.task!.statuses.map(s => s.value)

    // A column the task cannot reach from its status: refused in the browser, nothing sent.
    const illegal = statuses.find(status => status !== initial && !allowed.includes(status))!
    expect(illegal).toBeDefined()
    await drag(page, 'Mock the home page', illegal)
    await page.getByText(`"Mock the home page" cannot move to ${label(illegal)}`).first().waitFor()
    expect(await page.getByText(`can go to: ${allowed.map(label).join(', ')}`).count()).toBeGreaterThan(0)
    expect(await column(page, initial).getByText('Mock the home page').count()).toBe(1)
    expect(await taskStatus('Mock the home page')).toBe(initial)

    const target = allowed.find(status => status !== 'cancelled' && status !== 'blocked') ?? allowed[0]!
    await drag(page, 'Mock the home page', target)
    await column(page, target).getByText('Mock the home page').waitFor()
    await expect.poll(() => taskStatus('Mock the home page'), POLL).toBe(target)
    // After a reload too: the board reads the server.
    await page.reload()
    await page.waitForLoadState('networkidle')
    await column(page, target).getByText('Mock the home page').waitFor()
    await shot(page, 'board')
  })

  it('moves a task by keyboard, announcing it, and reorders a column by keyboard and by dragging', async () => {
    const { page } = operator
    await open(page, `/hub/worksites/projects/${projectId}`)
    const statuses = vocabulary.entities.task!.statuses.map(s => s.value)
    const initial = statuses[0]!
    const allowed = vocabulary.entities.task!.transitions[initial] ?? []
    // ArrowRight: the nearest allowed column to the right.
    const next = statuses.slice(1).find(status => allowed.includes(status))!
    await card(page, 'Pick the fonts').focus()
    await page.keyboard.press('ArrowRight')
    await column(page, next).getByText('Pick the fonts').waitFor()
    await expect.poll(() => page.getByTestId('board-announcement').innerText(), POLL).toContain(`Pick the fonts moved from ${label(initial)} to ${label(next)}`)
    await expect.poll(() => taskStatus('Pick the fonts'), POLL).toBe(next)
    // The card keeps the focus in its new column, and its menu lists where it may go next.
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Pick the fonts')

    // ↑: one place up in its column (it came in last, after the dragged one).
    const order = async () => (await api<{ items: Array<{ title: string }> }>(`/api/worksites/tasks?projectId=${projectId}&status=${next}&sort=position`)).items.map(task => task.title)
    await expect.poll(order, POLL).toEqual(['Mock the home page', 'Pick the fonts'])
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => page.getByTestId('board-announcement').innerText(), POLL).toContain('Pick the fonts is now card 1 of 2')
    await expect.poll(order, POLL).toEqual(['Pick the fonts', 'Mock the home page'])
    // And back by dragging a card onto another: it takes that card's place.
    const source = card(page, 'Mock the home page')
    const box = (await source.boundingBox())!
    await source.dragTo(card(page, 'Pick the fonts'), { sourcePosition: { x: 12, y: box.height - 8 }, targetPosition: { x: 12, y: 8 } })
    await expect.poll(order, POLL).toEqual(['Mock the home page', 'Pick the fonts'])
    expect(await column(page, next).getByTestId('board-card').allInnerTexts()).toEqual([expect.stringContaining('Mock the home page'), expect.stringContaining('Pick the fonts')])
  })

  it('rejects another draft with a reason, and the calibration counts it', async () => {
    const { page } = operator
    const chantierRow = page.getByTestId('atlas-calibration').locator('tbody tr').filter({ hasText: 'chantier' })
    await open(page, '/hub/atlas')
    await expect.poll(() => chantierRow.innerText(), POLL).toContain('(2/2)')
    await open(page, '/hub/worksites/drafts')
    await page.getByTestId('draft-card').first().waitFor()
    await shot(page, 'drafts')

    await page.locator(`[data-draft="${drafts.rejected}"]`).getByTestId('draft-reject').click()
    await field(page, 'draft-reject-reason').fill('A catering order, not a chantier.')
    await page.getByTestId('draft-reject-confirm').click()
    await page.getByTestId('drafts-empty').waitFor()
    const rejected = await api<{ status: string }>(`/api/worksites/chantiers/${drafts.rejected}`)
    expect(rejected.status).toBe('rejected')

    await open(page, '/hub/atlas')
    // One of the two chantier jobs did not succeed: the proxy success rate drops to 1/2.
    await expect.poll(() => chantierRow.innerText(), POLL).toContain('(1/2)')
    expect(await page.getByTestId('calibration-rejected').innerText()).toContain('1 rejected')
  })
})

describe('the registries', () => {
  it('answer a question from its page, and cancel a run with a reason', async () => {
    const { page } = operator
    await open(page, '/hub/worksites')
    // The card's link covers it (an overlay inside the link).
    await page.getByTestId('worksites-registry-questions').locator('span').first().click()
    await page.waitForURL('**/hub/worksites/registries/questions')
    await page.getByTestId('registry-table').getByText('Is our cookie banner compliant?').click()
    await page.waitForURL(`**/hub/worksites/registries/questions/${records.question}`)
    await field(page, 'registry-answer').fill('Yes, once the refusal button is as visible as the acceptance one.')
    await page.getByTestId('registry-answer-submit').click()
    await expect.poll(() => page.getByTestId('registry-status').innerText(), POLL).toBe('Answered')
    expect(await page.getByTestId('registry-outcome').innerText()).toContain('once the refusal button')
    expect(await page.getByTestId('registry-actions').count()).toBe(0)

    await open(page, `/hub/worksites/registries/runs/${records.run}`)
    await page.getByTestId('registry-cancel').click()
    await field(page, 'registry-cancel-reason').fill('The host renews it by itself.')
    await page.getByTestId('registry-cancel-confirm').click()
    await expect.poll(() => page.getByTestId('registry-status').innerText(), POLL).toBe('Cancelled')
    const run = await api<{ record: { status: string, statusReason: string } }>(`/api/worksites/registries/runs/${records.run}`)
    expect(run.record).toMatchObject({ status: 'cancelled', statusReason: 'The host renews it by itself.' })
  })

  it('show a task\'s moves on its page\'s timeline', async () => {
    const { page } = operator
    const { items } = await api<{ items: Array<{ id: string, title: string }> }>(`/api/worksites/tasks?projectId=${projectId}&limit=200`)
    const task = items.find(t => t.title === 'Mock the home page')!
    await open(page, `/hub/worksites/tasks/${task.id}`)
    await page.getByTestId('worksites-timeline').getByText('todo → in_progress').waitFor()
    await page.getByTestId('worksites-iterations').waitFor()
  })
})

describe('a viewer', () => {
  it('sees the board and the drafts without any control', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    try {
      const page = await context.newPage()
      await signInPage(page, hub.url, { email: 'viewer@studio.test', password: 'viewer-password-123' })
      await open(page, `/hub/worksites/projects/${projectId}`)
      await page.getByTestId('worksites-board').getByText('Set up the order form').waitFor()
      expect(await page.getByTestId('board-card').count()).toBe(3)
      expect(await page.getByTestId('board-card-move').count()).toBe(0)
      expect(await page.locator('[data-testid="board-card"][draggable="true"]').count()).toBe(0)
      for (const control of ['project-new-task', 'project-new-chantier', 'project-actions']) expect(await page.getByTestId(control).count(), control).toBe(0)
      expect(await page.locator('[data-testid^="transition-"]').count()).toBe(0)
      // Keys move nothing either.
      const status = await taskStatus('Set up the order form')
      await card(page, 'Set up the order form').focus()
      await page.keyboard.press('ArrowRight')
      expect(await taskStatus('Set up the order form')).toBe(status)
      // In French, the whole page: columns, tabs and cards' help. The language is the hub-lang
      // cookie the account menu sets, read on the next load.
      await context.addCookies([{ name: 'hub-lang', value: 'fr', url: hub.url }])
      await page.reload()
      await page.locator('html[lang="fr"]').waitFor({ state: 'attached' })
      await column(page, 'todo').getByText('À faire').waitFor()
      await shot(page, 'board-viewer-fr')
      expect(await page.getByTestId('project-tabs').innerText()).toContain('Tableau')
      await context.addCookies([{ name: 'hub-lang', value: 'en', url: hub.url }])

      await open(page, '/hub/worksites')
      await page.locator('html[lang="en"]').waitFor({ state: 'attached' })
      await page.getByTestId('projects-table').getByText(PROJECT).waitFor()
      expect(await page.getByTestId('worksites-new-project').count()).toBe(0)
      await shot(page, 'home-viewer')
    }
    finally {
      await context.close()
    }
  })
})
