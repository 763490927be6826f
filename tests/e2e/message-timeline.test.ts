// One message's story on one timeline (issue 36, Deliver 4) in a browser, against the real
// server: a mail that went to a spawn and a lesson shows each step in order (received, the
// sender's verdict, classified, approved, the work record, the spawn, its iteration, deploy, QA,
// actioned, the recap, the lesson), each with its actor, linked to the spawn and the lesson; and
// "Record the scar" on a message whose spawn failed opens its form, filled from the failure,
// and saves a scar linked to that spawn, which the timeline then shows. The trail is written as
// the pipeline and the spawn engine write it (their own integration tests run them for real).
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signInPage } from '../helpers/browser'
import { atlasAudit, atlasInbox, atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'
import { workChantiers } from '#db/schema/work'
import { classifiedMessage, createTenant } from '#layers/spawn/tests/fixtures/seed'

let hub: Hub
let browser: Browser
let page: Page
let messageId: number
let spawnId: string
let victoryId: number
let failedMessageId: number
let failedSpawnId: string
const FAILURE = 'the agent could not run: spawn-agent exited before its first event'

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  const database = await hubDatabase(hub)
  try {
    const db = database.db
    // Each write its own statement, as the pipeline's steps are: the times follow one another.
    const audit = (id: number, action: string, actor: string, details: Record<string, unknown>) =>
      db.insert(atlasAudit).values({ messageId: id, action, actor, details })
    const tenant = await createTenant(db)
    messageId = await classifiedMessage(db, { tenantId: tenant.id, intent: 'chantier', subject: 'A page for our opening hours', body: 'Could you add a page with our opening hours?', admission: 'approved' })
    await db.update(atlasMessages).set({ senderAuth: { verdict: 'pass', domain: `${tenant.slug}.example`, reasons: [], flags: [], results: { dkim: 'pass', spf: 'pass', dmarc: 'pass', arc: 'none', trusted: [] }, checkedAt: new Date().toISOString() } }).where(eq(atlasMessages.id, messageId))
    await audit(messageId, 'received', 'atlas-collect', { mailbox: 'INBOX', uid: 7, attachments: 0 })
    await audit(messageId, 'classified', 'atlas-collect', { intent: 'chantier', confidence: 0.93, provider: 'mistral', model: 'mistral-small-latest', tenantId: tenant.id, admission: 'awaiting' })
    await audit(messageId, 'awaiting_approval', 'atlas-collect', { reason: 'the sender is not a known contact' })
    await audit(messageId, 'spawn_approved', FOUNDER.email, { by: FOUNDER.email })
    const [chantier] = await db.insert(workChantiers).values({ sourceMessageId: messageId, lastMessageId: messageId, title: 'A page for our opening hours', brief: 'Opening hours page.', createdBy: FOUNDER.email }).returning()
    await db.update(atlasInbox).set({ materialisedKind: 'chantier', materialisedId: chantier!.id }).where(eq(atlasInbox.messageId, messageId))
    await audit(messageId, 'materialised', FOUNDER.email, { kind: 'chantier', id: chantier!.id, action: 'created', on: 'approval' })
    const [spawn] = await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'queued', queuedBy: 'atlas-spawn', agentCodename: 'orchestrator' }).returning()
    spawnId = spawn!.id
    await audit(messageId, 'spawn_started', 'atlas-spawn-worker', { spawnId, iteration: 1, host: 'worker-1' })
    await audit(messageId, 'spawn_completed', 'atlas-spawn-worker', { spawnId, iteration: 1, status: 'ok', commits: [{ sha: 'b0b0000', message: 'feat: hours page' }] })
    await audit(messageId, 'deployed', 'atlas-spawn-worker', { spawnId, iteration: 1, ok: true, deploy: 'default', durationMs: 1200 })
    await audit(messageId, 'qa_passed', 'atlas-spawn-worker', { spawnId, iteration: 1, routes: ['/hours'] })
    await db.update(atlasSpawns).set({ status: 'succeeded', outcome: 'actioned', endedAt: new Date() }).where(eq(atlasSpawns.id, spawnId))
    await db.update(atlasInbox).set({ status: 'actioned' }).where(eq(atlasInbox.messageId, messageId))
    await audit(messageId, 'actioned', 'atlas-spawn-worker', { spawnId, iteration: 1, intent: 'chantier', qa: 'passed on 1 route(s)', summary: 'sent to team@studio.test' })
    const [victory] = await db.insert(learnLessons).values({ kind: 'success', title: 'Opening hours page shipped with QA', description: 'QA passed on /hours.', sourceSpawnId: spawnId, recordedBy: 'atlas-spawn-worker' }).returning()
    victoryId = victory!.id

    // A message whose spawn failed: its scar is recorded from its page.
    failedMessageId = await classifiedMessage(db, { tenantId: tenant.id, subject: 'The contact form answers 500', body: 'Since yesterday the contact form fails.' })
    await audit(failedMessageId, 'received', 'atlas-collect', { mailbox: 'INBOX', uid: 8, attachments: 0 })
    await audit(failedMessageId, 'classified', 'atlas-collect', { intent: 'run', confidence: 0.9, provider: 'mistral', model: 'mistral-small-latest', tenantId: tenant.id, admission: 'auto' })
    const [failed] = await db.insert(atlasSpawns).values({ messageId: failedMessageId, iteration: 1, status: 'failed', outcome: 'spawn_failed', queuedBy: 'atlas-spawn', reason: FAILURE, endedAt: new Date() }).returning()
    failedSpawnId = failed!.id
    await audit(failedMessageId, 'spawn_failed', 'atlas-spawn-worker', { spawnId: failedSpawnId, iteration: 1, reason: FAILURE })
    await db.update(atlasInbox).set({ status: 'spawn_failed', statusReason: FAILURE, needsHuman: true }).where(eq(atlasInbox.messageId, failedMessageId))
  }
  finally {
    await database.close()
  }
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
  await signInPage(page, hub.url, FOUNDER)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

const stepKinds = () => page.getByTestId('timeline-step').evaluateAll(items => items.map(item => item.getAttribute('data-step-kind')))
const stepTitles = () => page.getByTestId('timeline-step-title').allTextContents()
const stepActors = () => page.getByTestId('timeline-step-actor').allTextContents()

describe('the message timeline', () => {
  it('shows a mail that went to a spawn and a lesson, each step in order with its actor and links', async () => {
    await page.goto(`${hub.url}/hub/atlas/${messageId}`)
    await page.getByTestId('message-timeline').waitFor()
    await expect.poll(stepKinds, { timeout: 15_000 }).toEqual([
      'received', 'authenticated', 'classified', 'admission', 'admission', 'work_record', 'spawn_queued', 'spawned', 'iteration', 'deployed', 'qa', 'actioned', 'recap', 'lesson',
    ])
    const titles = (await stepTitles()).map(title => title.trim())
    expect(titles).toEqual([
      'Received', expect.stringMatching(/^Sender authenticated/), 'Classified: chantier (confidence 0.93)', 'Waiting for a person\'s approval', `Approved by ${FOUNDER.email}`,
      'Work record: chantier created', 'Spawn 1 queued', 'Spawn 1 started', 'Iteration 1: the agent ended with status "ok"', 'Deployed', 'QA passed', 'Actioned (chantier)',
      'Recap sent to the team', 'Victory recorded: Opening hours page shipped with QA',
    ])
    const actors = (await stepActors()).map(actor => actor.trim())
    expect(actors[2]).toBe('mistral / mistral-small-latest')
    expect(actors[4]).toBe(FOUNDER.email)
    expect(actors[8]).toBe('orchestrator')
    expect(actors[13]).toBe('atlas-spawn-worker')
    const timeline = page.getByTestId('message-timeline')
    expect(await timeline.getByRole('link', { name: `Lesson: Opening hours page shipped with QA` }).getAttribute('href')).toBe(`/hub/learning?lesson=${victoryId}`)
    expect(await timeline.getByRole('link', { name: 'The chantier' }).count()).toBe(1)
    await timeline.getByTestId('timeline-step').nth(8).getByRole('link', { name: 'Spawn 1' }).click()
    await page.waitForURL(`**/hub/atlas/spawns/${spawnId}`)
  })

  it('opens "Record the scar" on a message whose spawn failed, filled from the failure, and saves it linked to the spawn', async () => {
    await page.goto(`${hub.url}/hub/atlas/${failedMessageId}`)
    await hydrated(page)
    await expect.poll(stepKinds, { timeout: 15_000 }).toContain('iteration')
    expect(await page.getByTestId('lesson-failed-spawn').textContent()).toContain(FAILURE)
    await page.getByTestId('atlas-record-scar').click()
    const form = page.getByTestId('lesson-form')
    await form.waitFor()
    expect(await formField(page, 'lesson-title').inputValue()).toBe('Spawn 1 failed')
    expect(await formField(page, 'lesson-description').inputValue()).toContain(FAILURE)
    await formField(page, 'lesson-agent').fill('orchestrator')
    await page.getByTestId('lesson-submit').click()
    await expect.poll(() => page.getByTestId('lesson-recorded').textContent(), { timeout: 15_000 }).toMatch(/Scar #\d+ recorded/)
    await expect.poll(() => form.count()).toBe(0)
    const lessonId = Number((await page.getByTestId('lesson-recorded').textContent())!.match(/Scar #(\d+)/)![1])

    // The timeline shows it after the failure, linked to the spawn and the lesson.
    await expect.poll(stepKinds, { timeout: 15_000 }).toEqual(['received', 'authenticated', 'classified', 'admission', 'spawn_queued', 'iteration', 'lesson'])
    const last = page.getByTestId('timeline-step').last()
    expect(await last.getByRole('link', { name: 'The spawn' }).getAttribute('href')).toBe(`/hub/atlas/spawns/${failedSpawnId}`)
    expect(await last.getByRole('link', { name: 'Lesson: Spawn 1 failed' }).getAttribute('href')).toBe(`/hub/learning?lesson=${lessonId}`)
    expect((await last.getByTestId('timeline-step-actor').textContent())!.trim()).toBe(FOUNDER.email)

    const database = await hubDatabase(hub)
    try {
      const [lesson] = await database.db.select().from(learnLessons).where(eq(learnLessons.id, lessonId))
      expect(lesson).toMatchObject({ kind: 'failure', sourceSpawnId: failedSpawnId, agent: 'orchestrator', recordedBy: FOUNDER.email })
      expect(lesson!.tags).toEqual(expect.arrayContaining([`message:${failedMessageId}`, `spawn:${failedSpawnId}`]))
    }
    finally {
      await database.close()
    }

    // The failed step's own button opens the same form for that spawn.
    await page.getByTestId('timeline-record-scar').click()
    await form.waitFor()
    expect(await formField(page, 'lesson-title').inputValue()).toBe('Spawn 1 failed')
  })
})
