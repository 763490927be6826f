// The learning loop in a browser, against the real hub (issue 18): an operator records a scar
// in the hub → the scar classifier and the suggestion engine run as automates against a
// scripted loopback model → the proposal appears in the feed (live) → a viewer sees it with no
// button → the operator applies it → the reflex memory holds the line and the audit log the
// decision. Around it, the routes as an adversary would call them.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { runTs } from '../helpers/processes'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'

const LINE = 'Run the migrations before restarting the hub.'
const SCAR = 'The hub restarted before its migrations'

let hub: Hub
let model: ScriptedModel
let browser: Browser
let cookies: Record<'founder' | 'operator' | 'viewer', string>
let operator: Page
let viewer: Page

beforeAll(async () => {
  model = await startScriptedModel()
  model.byDefault((prompt) => {
    if (prompt.startsWith('Scar #')) return { error_type: 'process', severity: 4, confidence: 0.9, learnable: true, rationale: 'An order rule prevents it.', tags: ['deploy'] }
    if (prompt.startsWith('Lesson #')) return { destination: 'reflex', suggestion: 'Make the deploy order a reflex.', diff_before: '', diff_after: LINE }
    return { importance: 7, reason: 'an outage' }
  })
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', ...model.env } })
  cookies = await signInEveryRole(hub)
  browser = await launchBrowser()
  operator = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  await signInPage(operator, hub.url, { email: 'operator@studio.test', password: 'operator-password-123' })
  viewer = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  await signInPage(viewer, hub.url, { email: 'viewer@studio.test', password: 'viewer-password-123' })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
  await model?.close()
})

const POLL = { timeout: 15_000 }
const call = (path: string, cookie: string, body?: unknown) => fetch(`${hub.url}${path}`, {
  method: body === undefined ? 'GET' : 'POST', headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
})
const field = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"] :is(input, textarea), :is(input, textarea)[data-testid="${testId}"]`)
async function open(page: Page, path: string): Promise<void> {
  await page.goto(`${hub.url}${path}`)
  await page.waitForLoadState('networkidle')
  await page.waitForFunction(() => Boolean((document.querySelector('#__nuxt') as { __vue_app__?: unknown } | null)?.__vue_app__))
}
const automate = (...args: string[]) => runTs('automates/run.ts', args, { env: { DATA_DIR: hub.dataDir, ...model.env } })

describe('the learning loop in the hub', () => {
  it('record a scar → classifier → suggestion engine → live feed → viewer without buttons → operator applies → reflex memory and audit log', async () => {
    await open(operator, '/hub/learning')
    await operator.getByTestId('record-scar').click()
    await field(operator, 'lesson-title').fill(SCAR)
    await field(operator, 'lesson-description').fill('The hub restarted on the new code before the migrations ran; every page answered 500 for ten minutes.')
    await field(operator, 'lesson-check').fill('The deploy script runs the migrations first.')
    await field(operator, 'lesson-tags').fill('deploy, migrations')
    await operator.getByTestId('lesson-save').click()
    await expect.poll(async () => operator.getByTestId('lessons-list').getByText(SCAR).count(), POLL).toBe(1)
    const { lessons } = await (await call('/api/learning/lessons?kind=scar', cookies.viewer)).json() as { lessons: Array<{ id: number, title: string, tags: string[], learnable: boolean, importance: number | null }> }
    const scar = lessons.find(l => l.title === SCAR)!
    expect(scar).toMatchObject({ tags: ['deploy', 'migrations'], learnable: true })
    // The importance, scored through the facade in the background.
    await expect.poll(async () => ((await (await call('/api/learning/lessons?kind=scar', cookies.viewer)).json()) as { lessons: Array<{ id: number, importance: number | null }> }).lessons.find(l => l.id === scar.id)?.importance, POLL).toBe(7)

    await operator.getByRole('tab', { name: 'Suggestions' }).click()
    const classified = await automate('learning-classify')
    expect(classified.code, classified.output).toBe(0)
    const suggested = await automate('learning-suggest')
    expect(suggested.code, suggested.output).toBe(0)
    expect(suggested.output).toMatch(/proposed 1 of 1 learnable lesson/)

    // Live: the proposal arrives in the open page without a reload.
    const card = operator.locator('[data-suggestion]').filter({ hasText: 'Make the deploy order a reflex.' })
    await expect.poll(async () => card.count(), POLL).toBe(1)
    await expect.poll(async () => card.getByTestId('diff-after').textContent(), POLL).toBe(LINE)

    await open(viewer, '/hub/learning')
    const seen = viewer.locator('[data-suggestion]').filter({ hasText: 'Make the deploy order a reflex.' })
    await expect.poll(async () => seen.count(), POLL).toBe(1)
    expect(await viewer.getByTestId('suggestion-apply').count()).toBe(0)
    expect(await viewer.getByTestId('suggestion-reject').count()).toBe(0)
    expect(await viewer.getByTestId('record-scar').count()).toBe(0)

    const memory = join(hub.dataDir, 'reflex', 'MEMORY.md')
    expect(existsSync(memory) ? readFileSync(memory, 'utf8') : '').not.toContain(LINE)
    await card.getByTestId('suggestion-apply').click()
    await expect.poll(() => (existsSync(memory) ? readFileSync(memory, 'utf8') : ''), POLL).toContain(`${LINE}\n`)
    const { audit } = await (await call('/api/learning/audit', cookies.viewer)).json() as { audit: Array<{ action: string, operator: string, diff: { diffAfter: string, target: string } }> }
    expect(audit[0]).toMatchObject({ action: 'applied', operator: 'operator@studio.test', diff: { diffAfter: LINE, target: expect.stringMatching(/^reflex:MEMORY\.md:\d+$/) } })
    await expect.poll(async () => operator.getByTestId('stat-applied').textContent(), POLL).toContain('1')
    await operator.getByRole('tab', { name: 'Audit log' }).click()
    await expect.poll(async () => operator.getByTestId('audit-entry').first().textContent(), POLL).toContain('operator@studio.test')
  }, 240_000)

  it('refuses bad input with a machine-readable 400, a viewer\'s write with 403, a second decision with 409', async () => {
    const base = { kind: 'scar', title: 'Tags as a Python list', description: 'The tags were sent as a Python list in a string.' }
    const python = await call('/api/learning/lessons', cookies.operator, { ...base, tags: '[\'a\', \'b\']' })
    expect(python.status).toBe(400)
    const body = await python.json() as { statusMessage: string, data: { code: string, field: string } }
    expect(body.data).toMatchObject({ code: 'bad_input', field: 'tags' })
    expect(body.statusMessage).toMatch(/tags: a list written as text/)
    const spaced = await call('/api/learning/lessons', cookies.operator, { ...base, tags: ['has space'] })
    expect(spaced.status).toBe(400)
    expect((await spaced.json() as { data: { field: string } }).data.field).toBe('tags.0')
    expect((await call('/api/learning/lessons', cookies.operator, { ...base, tags: '{deploy,ci}' })).status).toBe(201)
    expect((await call('/api/learning/lessons', cookies.operator, { ...base, kind: 'disaster' })).status).toBe(400)
    expect((await call('/api/learning/lessons', cookies.viewer, base)).status).toBe(403)
    expect((await call('/api/learning/suggestions/999999/apply', cookies.operator, {})).status).toBe(404)
    const { suggestions } = await (await call('/api/learning/suggestions?status=applied', cookies.viewer)).json() as { suggestions: Array<{ id: number }> }
    const again = await call(`/api/learning/suggestions/${suggestions[0]!.id}/reject`, cookies.operator, {})
    expect(again.status).toBe(409)
    expect((await again.json() as { data: { code: string } }).data.code).toBe('already_decided')
    expect((await call(`/api/learning/suggestions/${suggestions[0]!.id}/reject`, cookies.viewer, {})).status).toBe(403)
  })
})
