// Custom agents in a browser (issue 21 Deliver 6–10): the operator creates an agent from the
// custom agents page, gives it a schedule (the next runs are previewed) and one skill (a row of
// the skills library inserted here), saves version 2, runs it from its Chat tab, sees the run
// in Activity naming the skill, then restores version 1 (saved as version 3: no schedule, no
// skill). Then the chat drafts an agent (draft_custom_agent): the draft is listed, reviewed
// on its page with the suggested tool unticked, ticked and saved — version 1 with that tool
// only — and its Settings tab offers the Sharing section. No page error and no failed API
// call along the way.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { agentCustom } from '#db/schema/custom-agents'
import { skills } from '#db/schema/skills'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signedInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page
const errors: string[] = []
const SCREENS = join(TESTS_TMP, 'screens')
const POLL = { timeout: 15_000 }
const SKILL = 'webhook-triage'

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  const database = await hubDatabase(hub)
  try {
    await database.db.insert(skills).values({ name: SKILL, description: 'Sort webhook failures by cause.', body: 'Group failures by status code, then by endpoint.', createdBy: 'founder@studio.test' })
  }
  finally {
    await database.close()
  }
  await signInEveryRole(hub)
  mkdirSync(SCREENS, { recursive: true })
  browser = await launchBrowser()
  page = await signedInPage(browser, hub.url, { email: 'operator@studio.test', password: 'operator-password-123' }, errors)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

const field = (testId: string, tag: 'input' | 'textarea') => formField(page, testId, tag)

it('creates an agent, schedules it, attaches a skill, runs it and restores its first version', async () => {
  await page.goto(`${hub.url}/hub/agents`)
  await hydrated(page)
  await page.getByTestId('agents-custom').click()
  await page.waitForURL(/\/hub\/agents\/custom$/, POLL)
  await hydrated(page)
  await expect.poll(() => page.getByTestId('custom-empty').isVisible(), POLL).toBe(true)
  await page.getByTestId('custom-new').click()
  await field('custom-new-codename', 'input').fill('hook-sorter')
  await field('custom-new-nickname', 'input').fill('Hook sorter')
  await page.getByTestId('custom-create').click()
  await page.waitForURL(/\/hub\/agents\/custom\/hook-sorter\?tab=settings$/, POLL)
  await hydrated(page)
  await expect.poll(() => page.getByTestId('custom-version-1').isVisible(), POLL).toBe(true)

  await page.screenshot({ path: join(SCREENS, 'custom-agent-new.png'), fullPage: true })
  await page.getByTestId('custom-add-schedule').click()
  await field('custom-trigger-cron', 'input').fill('30 7 * * 1-5')
  await page.getByTestId('custom-skills').getByText(SKILL, { exact: true }).click()
  await page.getByTestId('custom-save').click()
  await expect.poll(() => page.getByTestId('custom-version-2').isVisible(), POLL).toBe(true)
  await expect.poll(() => page.getByTestId('custom-schedule-preview').textContent(), POLL).toContain('07:30')
  await page.screenshot({ path: join(SCREENS, 'custom-agent-settings.png'), fullPage: true })

  await page.getByRole('tab', { name: 'Chat' }).click()
  await field('custom-chat-input', 'textarea').fill('Sort the failed webhooks of this week.')
  await page.getByTestId('custom-chat-run').click()
  await expect.poll(() => page.getByTestId('custom-chat-answer').textContent(), POLL).toContain('succeeded')
  expect(await page.getByTestId('custom-chat-answer').textContent()).toContain(`skill: ${SKILL}`)

  await page.getByRole('tab', { name: 'Activity' }).click()
  await expect.poll(() => page.getByTestId('custom-run').count(), POLL).toBe(1)
  expect(await page.getByTestId('custom-run-skill').textContent()).toContain(SKILL)
  await page.screenshot({ path: join(SCREENS, 'custom-agent-activity.png'), fullPage: true })

  await page.getByRole('tab', { name: 'Settings' }).click()
  await page.getByTestId('custom-restore-1').click()
  await expect.poll(() => page.getByTestId('custom-version-3').isVisible(), POLL).toBe(true)
  expect(await page.getByTestId('custom-trigger').count()).toBe(0)
  expect(await page.getByTestId('custom-schedule-preview').count()).toBe(0)

  const database = await hubDatabase(hub)
  try {
    const [run] = await database.db.select().from(agentRuns).where(eq(agentRuns.agent, 'hook-sorter'))
    expect(run).toMatchObject({ regime: 'allowlist', trigger: 'interactive', actingEmail: 'operator@studio.test', status: 'succeeded' })
    const steps = await database.db.select().from(agentRunSteps).where(eq(agentRunSteps.runId, run!.id))
    expect(steps.some(step => step.skills.includes(SKILL))).toBe(true)
  }
  finally {
    await database.close()
  }
  expect(errors).toEqual([])
}, 120_000)

it('drafts an agent from the chat, reviews it and saves it with the tools the person ticked', async () => {
  const request = `Make me an agent that watches invoices\n\`\`\`offline-plan\n${JSON.stringify([{ call: 'draft_custom_agent', input: {
    codename: 'invoice-eye', nickname: 'Invoice eye', description: 'Watches invoices.', instructions: 'Read each invoice message.', triggers: [{ kind: 'mention' }], tools: ['search_atlas_messages', 'no_such_tool'],
  } }, { answer: 'Drafted: review it on the custom agents page.' }])}\n\`\`\``
  const chat = await page.request.post(`${hub.url}/api/agents/chat`, { data: { request } })
  expect(chat.status()).toBe(200)
  const { runId } = await chat.json() as { runId: string }
  await expect.poll(async () => ((await (await page.request.get(`${hub.url}/api/agents/runs/${runId}`)).json()) as { run: { status: string } }).run.status, POLL).toBe('succeeded')

  await page.goto(`${hub.url}/hub/agents/custom`)
  await hydrated(page)
  await page.getByTestId('custom-draft-invoice-eye').click()
  await page.waitForURL(/\/hub\/agents\/custom\/drafts\//, POLL)
  await hydrated(page)
  expect(await field('custom-draft-codename', 'input').inputValue()).toBe('invoice-eye')
  expect(await page.getByTestId('custom-draft-refused').textContent()).toContain('no_such_tool')
  const suggested = page.locator('#custom-draft-tool-search_atlas_messages')
  expect(await suggested.getAttribute('aria-checked')).toBe('false')
  await page.screenshot({ path: join(SCREENS, 'custom-agent-draft.png'), fullPage: true })
  await page.getByTestId('custom-draft-tools').getByText('search_atlas_messages (READ) — suggested', { exact: true }).click()
  await page.getByTestId('custom-draft-save').click()
  await page.waitForURL(/\/hub\/agents\/custom\/invoice-eye\?tab=settings$/, POLL)
  await hydrated(page)
  await expect.poll(() => page.getByTestId('custom-version-1').isVisible(), POLL).toBe(true)
  expect(await page.getByTestId('custom-sharing').isVisible()).toBe(true)

  const database = await hubDatabase(hub)
  try {
    const [agent] = await database.db.select().from(agentCustom).where(eq(agentCustom.codename, 'invoice-eye'))
    expect(agent).toMatchObject({ ownerEmail: 'operator@studio.test', version: 1 })
    expect(agent!.allowlist.tools).toEqual(['search_atlas_messages'])
  }
  finally {
    await database.close()
  }
  expect(errors).toEqual([])
}, 120_000)
