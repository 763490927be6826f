// A founder runs the suggestion job from the learning page (issue 36 Deliver 5), against the real
// hub and a scripted loopback model: the page says when suggestions are produced, the button
// starts the job now, its progress shows live until it is done, and the suggestion it produced
// is validated from the feed — the reflex memory then holds its line.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { hubDatabase, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { learnLessons } from '#db/schema/learn'
import { syncAutomations } from '#layers/health/core/automations'
import { DEFAULT_CRONTAB, readCrontab } from '#automates/supervisor'
import { automates } from '#automates/registry'

const LINE = 'Tag the release before the deploy starts.'

let hub: Hub
let model: ScriptedModel
let browser: Browser
let founder: Page

beforeAll(async () => {
  model = await startScriptedModel()
  model.byDefault(() => ({ destination: 'reflex', suggestion: 'Make the release tag a reflex.', diff_before: '', diff_after: LINE }))
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', ...model.env } })
  const database = await hubDatabase(hub)
  try {
    const entries = readCrontab(DEFAULT_CRONTAB)
    const definitions = new Map(await Promise.all(entries.map(async e => [e.automation, await automates[e.automation]!()] as const)))
    await syncAutomations(database.db, entries, name => definitions.get(name))
    await database.db.insert(learnLessons).values({ kind: 'failure', title: 'The deploy shipped an untagged release', description: 'Nobody could tell which commit was live.', learnable: true, importance: 6, recordedBy: 'test' })
  }
  finally {
    await database.close()
  }
  browser = await launchBrowser()
  founder = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  await signInPage(founder, hub.url, { email: 'founder@studio.test', password: 'founder-password-123' })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
  await model?.close()
})

const POLL = { timeout: 15_000 }

describe('nightly work on demand', () => {
  it('a founder runs the suggestion job from the learning page and validates the suggestion it produced', async () => {
    await founder.goto(`${hub.url}/hub/learning`)
    await founder.waitForLoadState('networkidle')
    await founder.waitForFunction(() => Boolean((document.querySelector('#__nuxt') as { __vue_app__?: unknown } | null)?.__vue_app__))
    expect(await founder.getByTestId('suggestions-when').textContent()).toContain('nightly suggestion job')
    expect(await founder.getByTestId('run-now').textContent()).toContain('runs at 04:10')

    await founder.getByRole('button', { name: 'Run the suggestion job now' }).click()
    await expect.poll(async () => founder.getByTestId('run-now-status').textContent(), { timeout: 120_000 }).toBe('done')
    expect(await founder.getByTestId('run-now-output').textContent()).toContain('proposed 1 of 1 learnable lesson(s)')

    const card = founder.locator('[data-suggestion]').filter({ hasText: 'Make the release tag a reflex.' })
    await expect.poll(async () => card.count(), POLL).toBe(1)
    await card.getByTestId('suggestion-apply').click()
    const memory = join(hub.dataDir, 'reflex', 'MEMORY.md')
    await expect.poll(() => (existsSync(memory) ? readFileSync(memory, 'utf8') : ''), POLL).toContain(`${LINE}\n`)
  }, 240_000)
})
