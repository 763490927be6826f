// The personal agent's chat panel in a browser (issue 19, Deliver 6): on a hub page the operator
// opens the command palette (Ctrl-K), types "Ask", chooses "Ask the agent"; the panel opens with
// the page as context; a question answered from the vault (offline provider, the recall finds
// the seeded note) streams its steps, then the answer citing the note as a link; the conversation
// is listed; "Steps" opens the run page — with no page error and no failed API call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signedInPage } from '../helpers/browser'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let browser: Browser
let page: Page
const vaultDir = mkdtempSync(join(tmpdir(), 'agent-chat-e2e-'))
const errors: string[] = []
const SCREENS = join(TESTS_TMP, 'screens')
const POLL = { timeout: 15_000 }

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1', VAULT_DIR: vaultDir } })
  const database = await hubDatabase(hub)
  try {
    mkdirSync(join(vaultDir, 'permanent'), { recursive: true })
    writeFileSync(join(vaultDir, 'permanent', 'webhook-retries.md'), '---\ntitle: Webhook retries\n---\n\n# Webhook retries\n\nWebhook retries are capped at five attempts, with exponential backoff.\n')
    await indexNotes({ db: database.db, vaultDir })
    await syncVectors({ db: database.db, embedder: offlineEmbedder(database.db), reflexDir: join(vaultDir, '..', 'no-reflex') }, { sources: ['note'] })
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

it('asks the agent from the command palette, sees the cited note and opens the run\'s steps', async () => {
  await page.goto(`${hub.url}/hub/worksites`)
  await hydrated(page)

  await page.keyboard.press('Control+k')
  const palette = page.getByPlaceholder('Pages, agents, messages, notes…')
  await palette.waitFor()
  await palette.fill('Ask')
  await page.getByRole('option', { name: /Ask the agent/ }).click()

  await expect.poll(() => page.getByTestId('agent-chat-context').textContent(), POLL).toContain('/hub/worksites')
  await page.locator('[data-testid="agent-chat-prompt"] textarea, textarea[data-testid="agent-chat-prompt"]').fill('How many times are webhook retries attempted?')
  await page.getByTestId('agent-chat-submit').click()

  await expect.poll(() => page.getByTestId('agent-chat-step').count(), POLL).toBeGreaterThanOrEqual(2)
  await expect.poll(() => page.getByTestId('agent-chat-status').first().textContent(), POLL).toContain('done')
  await expect.poll(() => page.getByTestId('agent-chat-answer').first().textContent(), POLL).toContain('capped at five attempts')
  const cited = page.getByTestId('agent-chat-source').filter({ hasText: 'Webhook retries' })
  await expect.poll(() => cited.count(), POLL).toBe(1)
  // The router writes the query's slash as is or escaped; what the vault page reads is the same.
  const href = new URL((await cited.getAttribute('href'))!, hub.url)
  expect([href.pathname, href.searchParams.get('note')]).toEqual(['/hub/memory/vault', 'permanent/webhook-retries.md'])
  await page.screenshot({ path: join(SCREENS, 'agent-chat.png'), fullPage: true })

  // The conversation is kept: the panel lists it and reopens it.
  await page.getByTestId('agent-chat-conversations').click()
  const kept = page.getByRole('menuitem', { name: /How many times are webhook retries attempted\?/ })
  await expect.poll(() => kept.count(), POLL).toBe(1)
  await kept.click()
  await expect.poll(() => page.getByTestId('agent-chat-question').count(), POLL).toBe(1)

  await page.getByTestId('agent-chat-run-link').first().click()
  await page.waitForURL(/\/hub\/agents\/runs\/[0-9a-f-]{36}$/, POLL)
  await expect.poll(() => page.getByTestId('run-status').textContent(), POLL).toContain('succeeded')
  await expect.poll(() => page.getByText('recall_memory').count(), POLL).toBeGreaterThan(0)
  expect(errors).toEqual([])
}, 120_000)
