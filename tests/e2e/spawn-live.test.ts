// The spawn engine as the team sees it, in a real browser against the real hub: the inbox
// shows a running spawn, the message page streams its events live (server-sent events) and
// then its result; a spawn silent for over five minutes shows as possibly hung, with its last
// event and how long ago. The engine runs in this process on the hub's embedded database,
// with the stand-in agent pacing its events.
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import type { Database } from '#db/connection'
import { atlasReplyDrafts } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { hubAudit } from '#db/schema/hub'
import { startEngine, type Engine } from '#layers/spawn/tests/fixtures/engine'
import { writeReplyDraft } from '#layers/spawn/core/reply-draft'
import { classifiedMessage, inbox } from '#layers/spawn/tests/fixtures/seed'
import { TESTS_TMP } from '../helpers/database-config'

let hub: Hub
let database: Database
let engine: Engine
let browser: Browser
let page: Page

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  database = await hubDatabase(hub, 4)
  engine = await startEngine(database.db, database.url)
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
  await signInPage(page, hub.url, FOUNDER)
}, 200_000)

afterAll(async () => {
  await browser?.close()
  await engine?.close()
  await database?.close()
  await hub?.interrupt()
})

const eventRows = () => page.locator('[data-testid="spawn-event-log"] tbody tr:not(:has-text("No event yet"))').count()

async function runningSpawn(messageId: number) {
  await expect.poll(async () => {
    const [row] = await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.messageId, messageId))
    return row?.status === 'running' && row.eventCount > 0
  }, { timeout: 60_000, interval: 200 }).toBe(true)
}

it('shows a running spawn on the inbox, streams its events live on the message page, then its result and reply draft, which a person redrafts, edits and records as sent', async () => {
  const id = await classifiedMessage(database.db, { intent: 'question', subject: 'Le formulaire de contact renvoie une erreur' })
  await engine.cycle()
  const work = engine.drain({ env: { ...engine.env, STAND_IN_VARIANT: 'success', STAND_IN_PACE_MS: '400', STAND_IN_LINGER_MS: '0' } })
  try {
    await runningSpawn(id)
    await page.goto(`${hub.url}/hub/atlas`)
    const status = page.getByTestId('spawn-engine-status')
    await expect.poll(async () => await status.textContent(), { timeout: 20_000 }).toContain(`Message #${id}`)
    expect(await status.textContent()).toContain('1 spawn(s) running')

    await page.goto(`${hub.url}/hub/atlas/${id}`)
    const spawn = page.getByTestId('spawn-1')
    await spawn.getByText('running').first().waitFor()
    await page.getByText('Live: events appear as the agent produces them.').waitFor({ timeout: 20_000 })
    await expect.poll(eventRows, { timeout: 20_000 }).toBeGreaterThan(2)
    const early = await eventRows()
    // Rows keep arriving while the page stays put: they come from the stream, not a reload.
    await expect.poll(eventRows, { timeout: 20_000 }).toBeGreaterThan(early + 3)
    // The log follows the newest event (it runs in the page; this file compiles without the DOM library).
    const followsNewest = () => page.getByTestId('spawn-event-rows').evaluate((el) => {
      const box = el as unknown as { scrollHeight: number, scrollTop: number, clientHeight: number }
      return box.scrollTop > 0 && box.scrollHeight - box.scrollTop - box.clientHeight < 40
    })
    await expect.poll(followsNewest, { timeout: 20_000 }).toBe(true)
    await page.getByTestId('spawn-timeline').screenshot({ path: `${TESTS_TMP}/spawn-live.png` })
  }
  finally {
    await work
  }
  expect(await inbox(database.db, id)).toMatchObject({ status: 'actioned' })
  const spawn = page.getByTestId('spawn-1')
  await spawn.getByText('succeeded').first().waitFor({ timeout: 20_000 })
  await page.getByText(/The spawn is over; \d+ event\(s\) shown\./).waitFor({ timeout: 20_000 })
  const [row] = await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.messageId, id))
  expect(await eventRows()).toBe(row!.eventCount)
  expect(await spawn.textContent()).toContain('The contact form validated the phone field twice')
  expect(await page.getByTestId('reply-draft-body').inputValue()).toBe(`Bonjour, le formulaire de contact est corrigé.\n\n${engine.config.teamSignature}`)
  // One sentence: below the house style, which the editor points out.
  expect(await page.getByTestId('reply-draft-sentences').textContent()).toContain('1 sentence(s) before the signature — the house style is 3 to 6')
  await page.getByTestId('spawn-timeline').screenshot({ path: `${TESTS_TMP}/spawn-done.png` })

  // A person asks for a new draft (the hub's offline model here), edits it and records that
  // they sent it: the agent's draft goes to the history, the sent text is the edited one.
  await page.getByTestId('reply-draft-generate').click()
  await page.getByTestId('reply-draft-generate-confirm').click()
  await expect.poll(async () => await page.getByTestId('reply-draft-history').textContent(), { timeout: 20_000 }).toMatch(/#\d+ discarded/)
  const edited = 'Madame, le formulaire de contact est corrigé. Vous pouvez le vérifier dès maintenant. Merci de votre patience.\n\nL\'équipe Synedre'
  const editor = page.getByTestId('reply-draft-body')
  await editor.fill(edited)
  expect(await page.getByTestId('reply-draft-sentences').textContent()).toContain('3 sentence(s) before the signature')
  // Meanwhile a colleague writes their own version: what is being typed stays, the newer version is announced.
  const colleague = 'Bonjour Madame, c\'est réparé.\n\nL\'équipe Synedre'
  await writeReplyDraft(database.db, { messageId: id, body: colleague, actor: 'sam@studio.test' })
  await page.getByTestId('reply-draft-newer').waitFor({ timeout: 20_000 })
  expect(await editor.inputValue()).toBe(edited)
  await page.getByRole('button', { name: 'I sent it' }).click()
  await expect.poll(async () => await page.getByTestId('reply-draft-history').textContent(), { timeout: 20_000 }).toContain(`sent by ${FOUNDER.email}`)
  // Every version is kept; the one sent is the text that was on screen.
  const drafts = await database.db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, id)).orderBy(atlasReplyDrafts.id)
  expect(drafts.map(d => [d.createdBy, d.status])).toEqual([['atlas-spawn-worker', 'discarded'], [FOUNDER.email, 'discarded'], ['sam@studio.test', 'discarded'], [FOUNDER.email, 'sent']])
  expect(drafts[2]!.body).toBe(colleague)
  expect(drafts[3]).toMatchObject({ body: edited, sentBy: FOUNDER.email })
  const trail = await database.db.select({ action: hubAudit.action, actor: hubAudit.actor }).from(hubAudit).where(eq(hubAudit.target, `atlas_message:${id}`)).orderBy(hubAudit.id)
  expect(trail.map(t => [t.action, t.actor])).toEqual([
    ['atlas_reply_draft_discarded', FOUNDER.email], ['atlas_reply_draft_generated', FOUNDER.email],
    ['atlas_reply_draft_discarded', 'sam@studio.test'], ['atlas_reply_draft_written', 'sam@studio.test'],
    ['atlas_reply_draft_discarded', FOUNDER.email], ['atlas_reply_draft_written', FOUNDER.email], ['atlas_reply_sent', FOUNDER.email],
  ])
})

it('shows a spawn silent for over five minutes as possibly hung, with its last event and how long ago', async () => {
  const id = await classifiedMessage(database.db, { intent: 'run' })
  await engine.cycle()
  const stop = new AbortController()
  const work = engine.drain({ env: { ...engine.env, STAND_IN_VARIANT: 'checkpoint-hang' }, signal: stop.signal })
  try {
    await runningSpawn(id)
    // The sandboxed agent starts and speaks in a burst: wait until it has said its last word
    // (no new event for 2 s), so no late event makes the record fresh again.
    let seen = -1
    await expect.poll(async () => {
      const [now] = await database.db.select({ count: atlasSpawns.eventCount }).from(atlasSpawns).where(eq(atlasSpawns.messageId, id))
      const settled = now!.count === seen
      seen = now!.count
      return settled
    }, { timeout: 60_000, interval: 2_000 }).toBe(true)
    // The agent has gone quiet; seven minutes pass in the record rather than in the test. On a
    // loaded machine a last event can still land after the backdating (the settle above reads
    // a 2 s silence, which a starved agent can outlast): the record is backdated again before
    // each look, the message's page and then the inbox.
    const backdated = async () => {
      await database.db.update(atlasSpawns).set({ lastEventAt: sql`now() - interval '7 minutes'` }).where(eq(atlasSpawns.messageId, id))
      const [row] = await database.db.select().from(atlasSpawns).where(eq(atlasSpawns.messageId, id))
      return row!
    }
    let lastEventType: string | null = null
    await expect.poll(async () => {
      lastEventType = (await backdated()).lastEventType
      await page.goto(`${hub.url}/hub/atlas/${id}`)
      const hung = page.getByTestId('spawn-hung')
      return await hung.waitFor({ timeout: 10_000 }).then(() => hung.textContent(), () => 'not shown')
    }, { timeout: 60_000, interval: 1_000 }).toContain('came 7 minutes ago; nothing since.')
    expect(await page.getByTestId('spawn-hung').textContent()).toContain(`The last event (${lastEventType}) came 7 minutes ago; nothing since.`)
    await expect.poll(async () => {
      await backdated()
      await page.goto(`${hub.url}/hub/atlas`)
      return await page.getByTestId('spawn-engine-status').textContent({ timeout: 10_000 })
    }, { timeout: 40_000, interval: 1_000 }).toContain('possibly hung')
  }
  finally {
    stop.abort(new Error('test over'))
    await work
  }
})

it('shows the routed agent working on the reactor while its spawn runs, then the spawn in the agent\'s activity', async () => {
  const id = await classifiedMessage(database.db, { intent: 'question', subject: 'Le bouton payer ne répond plus' })
  await engine.cycle()
  const work = engine.drain({ env: { ...engine.env, STAND_IN_VARIANT: 'success', STAND_IN_PACE_MS: '400', STAND_IN_LINGER_MS: '0' } })
  let agent = ''
  try {
    await runningSpawn(id)
    const [spawn] = await database.db.select({ agent: atlasSpawns.agentCodename }).from(atlasSpawns).where(eq(atlasSpawns.messageId, id))
    agent = spawn!.agent!
    expect(agent).toBeTruthy()
    await page.goto(`${hub.url}/hub/agents`)
    await page.getByTestId('reactor').waitFor()
    await expect.poll(async () => await page.getByTestId(`reactor-node-${agent}`).getAttribute('data-state'), { timeout: 20_000 }).toBe('working')
  }
  finally {
    await work
  }
  expect(await inbox(database.db, id)).toMatchObject({ status: 'actioned' })
  await page.goto(`${hub.url}/hub/agents`)
  await expect.poll(async () => await page.getByTestId(`reactor-node-${agent}`).getAttribute('data-state'), { timeout: 20_000 }).toBe('idle')
  await page.goto(`${hub.url}/hub/agents/${agent}`)
  await expect.poll(async () => await page.getByTestId('agent-activity').textContent(), { timeout: 20_000 }).toContain(`atlas#${id}/spawn/`)
})
