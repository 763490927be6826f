// The personal agent changes things in a browser (issue 35, Deliver 4): from the chat panel
// (Ctrl-K → "Ask the agent") the operator's agent, driven by the scripted offline model, moves a
// task and answers a question — WRITE tools that run at once, each undone from the run page —
// and drafts a client reply — an EXTERNAL_WRITE that waits for the operator's approval on the
// run page, lands as the message's draft (never sent), and is withdrawn by its undo. No page
// error and no failed API call along the way.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { atlasReplyDrafts } from '#db/schema/atlas'
import { workQuestions } from '#db/schema/work'
import { workTasks } from '#db/schema/worksites'
import { recordFromMessage, worksite } from '#layers/worksites/tests/fixtures/world'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signedInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page
let taskId = ''
let questionId = ''
let messageId = 0
const vaultDir = mkdtempSync(join(tmpdir(), 'personal-agent-writes-e2e-'))
const errors: string[] = []
const SCREENS = join(TESTS_TMP, 'screens')
const POLL = { timeout: 15_000 }

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1', VAULT_DIR: vaultDir } })
  const database = await hubDatabase(hub)
  try {
    taskId = (await worksite(database.db, 1)).tasks[0]!.id
    const { message, record } = await recordFromMessage(database.db, 'question', { subject: 'Quel hébergeur pour le site ?' })
    questionId = record.id
    messageId = message.id
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
  rmSync(vaultDir, { recursive: true, force: true })
})

const plan = (request: string, steps: unknown[]) => `${request}\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

/** Asks the agent from the chat panel of a fresh hub page, waits for the turn's status, then opens its run page. */
async function askFromChat(request: string, status: string): Promise<void> {
  await page.goto(`${hub.url}/hub/worksites`)
  await hydrated(page)
  await page.keyboard.press('Control+k')
  const palette = page.getByPlaceholder('Pages, agents, messages, notes…')
  await palette.waitFor()
  await palette.fill('Ask')
  await page.getByRole('option', { name: /Ask the agent/ }).click()
  await page.locator('[data-testid="agent-chat-prompt"] textarea, textarea[data-testid="agent-chat-prompt"]').fill(request)
  await page.getByTestId('agent-chat-submit').click()
  await expect.poll(() => page.getByTestId('agent-chat-status').first().textContent(), POLL).toContain(status)
  await page.getByTestId('agent-chat-run-link').first().click()
  await page.waitForURL(/\/hub\/agents\/runs\/[0-9a-f-]{36}$/, POLL)
}

async function undoTheWrite(): Promise<void> {
  await page.getByTestId('step-undo').click()
  await expect.poll(() => page.getByText('undone by operator@studio.test').count(), POLL).toBe(1)
}

async function inDatabase<T>(read: (db: Awaited<ReturnType<typeof hubDatabase>>['db']) => Promise<T>): Promise<T> {
  const database = await hubDatabase(hub)
  try {
    return await read(database.db)
  }
  finally {
    await database.close()
  }
}

it('moves a task at once, and the run page undoes it', async () => {
  await askFromChat(plan('Start the task.', [
    { call: 'update_work_item', input: { entity: 'task', id: taskId, status: 'in_progress' } },
    { answer: 'The task is in progress.' },
  ]), 'done')
  await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('succeeded')
  await expect.poll(() => inDatabase(async db => (await db.select().from(workTasks).where(eq(workTasks.id, taskId)))[0]!.status), POLL).toBe('in_progress')
  await undoTheWrite()
  await expect.poll(() => inDatabase(async db => (await db.select().from(workTasks).where(eq(workTasks.id, taskId)))[0]!.status), POLL).toBe('todo')
  expect(errors).toEqual([])
}, 120_000)

it('answers a question at once, and the run page undoes it (the question is open again)', async () => {
  await askFromChat(plan('Answer the hosting question.', [
    { call: 'answer_registry_record', input: { kind: 'question', id: questionId, answer: 'Scaleway, à Paris.' } },
    { answer: 'Answered.' },
  ]), 'done')
  await expect.poll(() => inDatabase(async db => (await db.select().from(workQuestions).where(eq(workQuestions.id, questionId)))[0]!.status), POLL).toBe('answered')
  await page.screenshot({ path: join(SCREENS, 'personal-agent-answer.png'), fullPage: true })
  await undoTheWrite()
  await expect.poll(() => inDatabase(async db => (await db.select().from(workQuestions).where(eq(workQuestions.id, questionId)))[0]!.status), POLL).toBe('open')
  expect(errors).toEqual([])
}, 120_000)

it('drafts a client reply only once the operator approves it; the message shows the draft; its undo withdraws it', async () => {
  const body = 'Madame, nous retenons Scaleway à Paris pour l\'hébergement.'
  await askFromChat(plan('Draft the reply to the client.', [
    { call: 'draft_client_reply', input: { messageId, body } },
    { answer: 'The reply is drafted for you to send.' },
  ]), 'awaiting approval')
  await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('awaiting approval')
  await expect.poll(() => page.getByTestId('approval-payload').textContent(), POLL).toContain('nous retenons Scaleway')
  expect(await inDatabase(db => db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, messageId)))).toEqual([])

  await page.getByTestId('approval-approve').click()
  await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('succeeded')
  await expect.poll(() => page.getByTestId('run-answer').textContent(), POLL).toContain('The reply is drafted for you to send.')
  const runUrl = page.url()
  const [draft] = await inDatabase(db => db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, messageId)))
  expect(draft).toMatchObject({ status: 'draft', sentAt: null, sentBy: null })
  expect(draft!.body.startsWith(body)).toBe(true)

  await page.goto(`${hub.url}/hub/atlas/${messageId}`)
  await hydrated(page)
  await expect.poll(() => page.getByTestId('reply-draft-body').inputValue(), POLL).toContain('nous retenons Scaleway')
  await page.screenshot({ path: join(SCREENS, 'personal-agent-reply-draft.png'), fullPage: true })

  await page.goto(runUrl)
  await hydrated(page)
  await undoTheWrite()
  await expect.poll(async () => (await inDatabase(db => db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, messageId))))[0]!.status, POLL).toBe('discarded')
  expect(errors).toEqual([])
}, 120_000)
