// The run page in a browser (issue 19): the operator asks their agent from /hub/agents/runs
// with an offline scripted plan, lands on the run page, reads the approval's exact payload,
// undoes the work item the agent created, approves the spawn — the run ends succeeded, the
// spawn is queued — with no page error and no failed API call.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { workChantiers } from '#db/schema/work'
import { workTasks } from '#db/schema/worksites'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signedInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page
let jobId = ''
let taskId = ''
const vaultDir = mkdtempSync(join(tmpdir(), 'agent-runs-e2e-'))
const errors: string[] = []
const SCREENS = join(TESTS_TMP, 'screens')
const POLL = { timeout: 15_000 }

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1', VAULT_DIR: vaultDir } })
  const database = await hubDatabase(hub)
  try {
    const site = await worksite(database.db, 1)
    jobId = site.job.id
    taskId = site.tasks[0]!.id
    const [message] = await database.db.insert(atlasMessages).values({ dedupeKey: 'agent-runs-e2e', rawSha256: '0'.repeat(64), rawSize: 10, mailbox: 'INBOX', subject: 'Webhooks' } as typeof atlasMessages.$inferInsert).returning({ id: atlasMessages.id })
    await database.db.update(workChantiers).set({ sourceMessageId: message!.id }).where(eq(workChantiers.id, site.chantier.id))
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

it('asks the agent, undoes its work item and approves its spawn from the run page', async () => {
  await page.goto(`${hub.url}/hub/agents/runs`)
  await hydrated(page)
  const plan = [
    { call: 'create_work_item', input: { jobId, title: 'Cap the webhook retries' } },
    { call: 'start_spawn', input: { taskId } },
    { answer: 'Task created and spawn queued.' },
  ]
  await page.locator('[data-testid="runs-ask"] textarea, textarea[data-testid="runs-ask"]').fill(`Plan the retries.\n\`\`\`offline-plan\n${JSON.stringify(plan)}\n\`\`\``)
  await page.getByTestId('runs-ask-submit').click()
  await page.waitForURL(/\/hub\/agents\/runs\/[0-9a-f-]{36}$/, POLL)
  await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('awaiting approval')
  await expect.poll(() => page.getByTestId('approval-payload').textContent(), POLL).toContain(taskId)
  await page.screenshot({ path: join(SCREENS, 'agent-run-paused.png'), fullPage: true })

  await page.getByTestId('step-undo').click()
  await expect.poll(() => page.getByText('undone by operator@studio.test').count(), POLL).toBe(1)
  const database = await hubDatabase(hub)
  try {
    await expect.poll(async () => (await database.db.select().from(workTasks).where(eq(workTasks.title, 'Cap the webhook retries'))).length, POLL).toBe(0)
    await page.getByTestId('approval-approve').click()
    await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('succeeded')
    await expect.poll(() => page.getByTestId('run-answer').textContent(), POLL).toContain('Task created and spawn queued.')
    expect(await page.getByTestId('run-model').textContent()).toContain('offline / offline-rules-v1')
    const [spawn] = await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.taskId, taskId))
    expect(spawn!.status).toBe('queued')
  }
  finally {
    await database.close()
  }
  await page.screenshot({ path: join(SCREENS, 'agent-run-done.png'), fullPage: true })
  expect(errors).toEqual([])
}, 120_000)
