// The hub half of "close the loop" (issue 15) in a browser, against the real server: the
// reflex memory's editor refuses a 201-character line naming its number; a scar recorded from
// a message page shows in the lessons list and from the agent's page; the spawn page shows
// the routed agent and the briefing as sent; a stranger's message waiting for approval has no
// work record until a person approves it on its page. The routes' refusals are checked over
// HTTP too.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signInPage } from '../helpers/browser'
import { runTs } from '../helpers/processes'
import { connectDatabase } from '#db/connection'
import { findRunningEmbedded } from '#db/embedded'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { atlasInbox } from '#db/schema/atlas'
import { workChantiers, workRecalls } from '#db/schema/work'
import { classifiedMessage, createTenant } from '#layers/spawn/tests/fixtures/seed'
import { spawnPaths } from '#layers/spawn/core/run-agent'

let hub: Hub
let browser: Browser
let page: Page
let messageId: number
let spawnId: string
let chantierMessageId: number
let waitingMessageId: number
const cookies: Record<string, string> = {}
const SCAR = 'Cart emptied by the cache on refresh'

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  const database = await connectDatabase(findRunningEmbedded(hub.dataDir)!, { max: 1 })
  try {
    const db = database.db
    const tenant = await createTenant(db)
    messageId = await classifiedMessage(db, { tenantId: tenant.id, subject: 'The cart empties itself', body: 'Since yesterday the cart is empty after a refresh.' })
    const [spawn] = await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'failed', outcome: 'qa_failed', queuedBy: 'test', reason: 'QA found 1 application error', qa: { passed: false, errors: [{ kind: 'application', route: '/cart', message: 'HTTP 500' }] } }).returning()
    spawnId = spawn!.id
    // The agent the spawn worker routed it to.
    await db.update(atlasSpawns).set({ agentCodename: 'orchestrator' }).where(eq(atlasSpawns.id, spawnId))
    // A chantier draft materialised from a message a person approved, with what the
    // pre-creation recall found (a message still waiting has no record: below).
    chantierMessageId = await classifiedMessage(db, { intent: 'chantier', subject: 'Rebuild our blog', body: 'A new design for the blog.', admission: 'approved' })
    const [chantier] = await db.insert(workChantiers).values({ sourceMessageId: chantierMessageId, lastMessageId: chantierMessageId, title: 'Rebuild our blog', brief: 'A new design for the blog.', createdBy: 'atlas-collect' }).returning()
    await db.update(atlasInbox).set({ materialisedKind: 'chantier', materialisedId: chantier!.id }).where(eq(atlasInbox.messageId, chantierMessageId))
    await db.insert(workRecalls).values({ kind: 'chantier', recordId: chantier!.id, query: 'Rebuild our blog', modeUsed: 'hybrid', hits: [{ rank: 1, sourceType: 'scar', sourceId: '1', title: 'Blog redesign lost its SEO traffic', snippet: 'Plan the redirects before the switch.', score: 0.03 }] })
    // A stranger's chantier, classified and waiting for a person: nothing materialised yet.
    waitingMessageId = await classifiedMessage(db, { intent: 'chantier', subject: 'A new online shop for us', body: 'We would like a shop on our site.', admission: 'awaiting', status: 'awaiting_approval' })
  }
  finally {
    await database.close()
  }
  // The system prompt file as the worker writes it (ATLAS_TMP_DIR defaults to <DATA_DIR>/tmp).
  const paths = spawnPaths(join(hub.dataDir, 'tmp'), spawnId)
  mkdirSync(paths.spawnDir, { recursive: true })
  writeFileSync(paths.systemPromptFile, '# Persona\nYou are the orchestrator.\n## Scars to keep in mind\n- Never cache the cart.\n')
  const created = await runTs('scripts/user-create.ts', ['--email', 'operator@studio.test', '--role', 'operator', '--password-stdin'], { env: { DATA_DIR: hub.dataDir }, input: 'operator-password-123' })
  expect(created.code, created.output).toBe(0)
  cookies.operator = await signIn(hub.url, 'operator@studio.test', 'operator-password-123')
  cookies.founder = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
  await signInPage(page, hub.url, FOUNDER)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

/** The input or textarea of a Nuxt UI field, whichever element carries the test id. */
const field = (testId: string) => page.locator(`[data-testid="${testId}"] :is(input, textarea), :is(input, textarea)[data-testid="${testId}"]`).first()

const call = (method: string, path: string, cookie: string, body?: unknown) => fetch(`${hub.url}${path}`, {
  method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
})

describe('the memory a person edits', () => {
  it('refuses a 201-character reflex line, naming its number, and saves a good index', async () => {
    await page.goto(`${hub.url}/hub/memory`)
    await page.getByRole('link', { name: 'Reflex memory' }).first().click()
    await page.waitForURL('**/hub/memory/reflex')
    await field('reflex-text').fill(`# Reflexes\nAnswer in French to French clients.\n${'x'.repeat(201)}`)
    await page.getByTestId('reflex-too-long').getByText('Line 3 is 201 characters long').waitFor()
    await page.getByTestId('reflex-save').click()
    await expect.poll(() => page.getByTestId('reflex-refusal').textContent()).toContain('line 3 is 201 characters long')

    await field('reflex-text').fill('# Reflexes\nAnswer in French to French clients.\n')
    await page.getByTestId('reflex-save').click()
    await page.getByText('Reflex memory saved').first().waitFor()
    const saved = await (await call('GET', '/api/memory/reflex', cookies.founder!)).json() as { index: { entries: Array<{ line: number, text: string }> } }
    expect(saved.index.entries).toEqual([{ line: 2, text: 'Answer in French to French clients.' }])
  })

  it('answers the routes\' refusals with a machine-readable body', async () => {
    const long = await call('PUT', '/api/memory/reflex', cookies.operator!, { text: `ok\n${'y'.repeat(201)}\n` })
    expect(long.status).toBe(400)
    expect((await long.json() as { data: unknown }).data).toMatchObject({ code: 'reflex_line_too_long', line: 2, length: 201 })
    const stale = await call('PUT', '/api/memory/reflex', cookies.operator!, { text: 'x\n', sha256: '0'.repeat(64) })
    expect(stale.status).toBe(409)
    const byOperator = await call('PUT', '/api/memory/user-model/founder@studio.test', cookies.operator!, { dimension: 'communication_style', value: { tone: 'direct' } })
    expect(byOperator.status).toBe(403)
    const byFounder = await call('PUT', '/api/memory/user-model/founder@studio.test', cookies.founder!, { dimension: 'communication_style', value: { tone: 'direct' } })
    expect(byFounder.status).toBe(200)
    expect((await call('PUT', '/api/memory/user-model/founder@studio.test', cookies.founder!, { dimension: 'nope', value: {} })).status).toBe(400)
    expect((await call('PUT', '/api/memory/briefs/no-such-tenant', cookies.operator!, { brief: 'x' })).status).toBe(404)
    expect((await call('POST', `/api/atlas/messages/${messageId}/lessons`, cookies.operator!, { kind: 'scar', title: 'ok title', description: 'long enough text', agent: 'no-such-agent' })).status).toBe(400)
    expect((await call('POST', '/api/atlas/messages/999999/lessons', cookies.operator!, { kind: 'scar', title: 'ok title', description: 'long enough text' })).status).toBe(404)
    expect((await call('POST', `/api/atlas/messages/${messageId}/lessons`, cookies.operator!, { kind: 'win', title: 'ok title', description: 'long enough text' })).status).toBe(400)
  })
})

describe('the loop in the hub', () => {
  it('records a scar from the message page; it shows in the lessons list and from the agent\'s page', async () => {
    await page.goto(`${hub.url}/hub/atlas/${messageId}`)
    await page.getByTestId('atlas-lesson-form').waitFor()
    // "Record the scar" opens the form (its spawn failed: filled from the failure, linked to it).
    await hydrated(page)
    await page.getByTestId('atlas-record-scar').click()
    await page.getByTestId('lesson-form').waitFor()
    await field('lesson-title').fill(SCAR)
    await field('lesson-description').fill('The CDN cached the cart page; every refresh showed an empty cart.')
    await field('lesson-agent').fill('orchestrator')
    await page.getByTestId('lesson-submit').click()
    await expect.poll(() => page.getByTestId('lesson-recorded').textContent(), { timeout: 15_000 }).toMatch(/Scar #\d+ recorded/)
    await page.getByTestId('lesson-recorded').getByRole('link').click()
    await page.waitForURL('**/hub/learning?lesson=*')
    await page.getByTestId('lessons-list').getByText(SCAR).waitFor()

    await page.goto(`${hub.url}/hub/agents/orchestrator`)
    await page.getByTestId('agent-lessons').click()
    await page.waitForURL('**/hub/learning?agent=orchestrator')
    await page.getByTestId('lessons-list').getByText(SCAR).waitFor()
    expect(await page.getByTestId('lessons-list').textContent()).toContain(`message:${messageId}`)
    expect(await page.getByTestId('lessons-list').textContent()).toContain(`spawn:${spawnId}`)
  })

  it('shows what the memory recalled before a person confirms the chantier draft', async () => {
    await page.goto(`${hub.url}/hub/atlas/${chantierMessageId}`)
    const recall = page.getByTestId('atlas-recall')
    await recall.getByText('Blog redesign lost its SEO traffic').waitFor()
    // The recall comes before the approval in the page.
    const [recallBox, admissionBox] = await Promise.all([recall.boundingBox(), page.getByTestId('atlas-admission').boundingBox()])
    expect(recallBox!.y).toBeLessThan(admissionBox!.y)
    await page.getByTestId('atlas-confirm-chantier').click()
    await page.getByText('Chantier confirmed').first().waitFor()
    await expect.poll(() => page.getByTestId('atlas-materialised').textContent()).toContain('planned')
    expect(await page.getByTestId('atlas-confirm-chantier').count()).toBe(0)
  })

  it('says a waiting message\'s work record is created when a person approves it, and shows the one the approval created', async () => {
    await page.goto(`${hub.url}/hub/atlas/${waitingMessageId}`)
    const record = page.getByTestId('atlas-materialised')
    await expect.poll(() => record.textContent()).toContain('None yet: the chantier draft is created when a person approves this message.')
    expect(await page.getByTestId('atlas-recall').count()).toBe(0)
    await page.getByTestId('atlas-approve').click()
    await page.getByText('Its chantier is created').first().waitFor()
    await expect.poll(() => record.textContent()).toContain('A new online shop for us')
    expect(await record.textContent()).toContain('draft')
    await page.getByTestId('atlas-recall').waitFor()
    expect(await page.getByTestId('atlas-approve').count()).toBe(0)
  })

  it('shows on the spawn page the routed agent and the briefing as sent', async () => {
    await page.goto(`${hub.url}/hub/atlas/${messageId}`)
    await page.getByTestId('spawn-story-1').click()
    await page.waitForURL(`**/hub/atlas/spawns/${spawnId}`)
    await page.getByTestId('spawn-agent').getByRole('link', { name: 'orchestrator' }).waitFor()
    const briefing = page.getByTestId('spawn-briefing')
    await briefing.waitFor()
    expect(await briefing.textContent()).toContain('No lessons injected.')
    expect(await page.getByTestId('spawn-system-prompt').textContent()).toContain('Never cache the cart.')
    expect(await page.getByTestId('spawn-deploy-qa').textContent()).toContain('HTTP 500')
    expect(await page.getByTestId('spawn-message').textContent()).toContain('The cart empties itself')
  })
})
