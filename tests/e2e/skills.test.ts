// The skills library in a browser (issue 21 Deliver 2): an operator writes a skill by hand
// (version 1, enabled for them); the founder finds it in Discover — access is not activation
// — enables it for themself and sees it in My skills; a built-in is enabled by default and
// disabled per person, never deleted; the skill's page lists its versions after a save and
// restores an old one as a new version; made private from its edit form, it leaves the
// founder's library. No page error and no failed API call along the way.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signedInPage } from '../helpers/browser'

let hub: Hub
let browser: Browser
let operator: Page
let founder: Page
const errors: string[] = []
const POLL = { timeout: 15_000 }

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  await signInEveryRole(hub)
  browser = await launchBrowser()
  operator = await signedInPage(browser, hub.url, { email: 'operator@studio.test', password: 'operator-password-123' }, errors)
  founder = await signedInPage(browser, hub.url, FOUNDER, errors)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

it('an operator writes a skill by hand; it opens on its page at version 1, and a save makes version 2', async () => {
  await operator.goto(`${hub.url}/hub/skills`)
  await hydrated(operator)
  // The built-ins are there from the start, enabled.
  await operator.getByTestId('skill-card-write-a-recap').waitFor()
  await operator.getByTestId('skills-new').click()
  await formField(operator, 'skill-form-name', 'input').fill('team-standup')
  await formField(operator, 'skill-form-description', 'textarea').fill('Run the daily standup: yesterday, today, blockers. Point quotidien.')
  await formField(operator, 'skill-form-body', 'textarea').fill('1. Yesterday.\n2. Today.\n3. Blockers.')
  await operator.getByTestId('skill-form-save').click()
  await operator.waitForURL(/\/hub\/skills\/\d+$/)
  await hydrated(operator)
  await expect.poll(() => operator.getByTestId('skill-versions').innerText(), POLL).toContain('v1')
  await formField(operator, 'skill-body', 'textarea').fill('1. Yesterday.\n2. Today.\n3. Blockers, with an owner each.')
  await operator.getByTestId('skill-save').click()
  await expect.poll(() => operator.getByTestId('skill-versions').innerText(), POLL).toContain('v2')
  await operator.getByTestId('skill-restore-1').click()
  await expect.poll(() => operator.getByTestId('skill-versions').innerText(), POLL).toContain('restored from version 1')
  expect(await formField(operator, 'skill-body', 'textarea').inputValue()).toBe('1. Yesterday.\n2. Today.\n3. Blockers.')
  expect(await operator.getByTestId('skill-version').count()).toBe(3)
})

it('the founder finds it in Discover, enables it for themself and sees it in My skills', async () => {
  await founder.goto(`${hub.url}/hub/skills`)
  await hydrated(founder)
  await founder.getByTestId('skill-card-write-a-recap').waitFor()
  expect(await founder.getByTestId('skill-card-team-standup').count()).toBe(0)
  await founder.getByRole('tab', { name: /Discover/ }).click()
  const card = founder.getByTestId('skill-card-team-standup')
  await card.waitFor()
  await founder.getByTestId('skill-toggle-team-standup').click()
  await expect.poll(() => card.count(), POLL).toBe(0)
  await founder.getByRole('tab', { name: /My skills/ }).click()
  await founder.getByTestId('skill-card-team-standup').waitFor()
  expect(await founder.getByTestId('skill-toggle-team-standup').innerText()).toContain('Disable for me')
})

it('a built-in is disabled per person (it moves to Discover for them only) and offers no delete', async () => {
  await founder.getByTestId('skill-toggle-write-a-recap').click()
  await expect.poll(() => founder.getByTestId('skill-card-write-a-recap').count(), POLL).toBe(0)
  await founder.getByRole('tab', { name: /Discover/ }).click()
  await founder.getByTestId('skill-card-write-a-recap').waitFor()
  await operator.goto(`${hub.url}/hub/skills`)
  await hydrated(operator)
  await operator.getByTestId('skill-card-write-a-recap').waitFor()
  await operator.getByTestId('skill-card-write-a-recap').getByRole('link').click()
  await operator.waitForURL(/\/hub\/skills\/\d+$/)
  await hydrated(operator)
  await operator.getByText('built-in (disable it for yourself; it is never deleted)').waitFor()
  expect(await operator.getByRole('button', { name: 'Delete' }).count()).toBe(0)
  expect(errors).toEqual([])
})

it('made private from its edit form, a skill leaves the founder\'s library (it was enabled there)', async () => {
  await operator.goto(`${hub.url}/hub/skills`)
  await hydrated(operator)
  await operator.getByTestId('skill-card-team-standup').getByRole('link').click()
  await operator.waitForURL(/\/hub\/skills\/\d+$/)
  await hydrated(operator)
  await operator.getByTestId('skill-visibility').click()
  await operator.getByRole('option', { name: /Private/ }).click()
  await operator.getByTestId('skill-save').click()
  await operator.getByText('· private').waitFor()
  await founder.goto(`${hub.url}/hub/skills`)
  await hydrated(founder)
  await founder.getByTestId('skill-card-summarise-a-document').waitFor()
  expect(await founder.getByTestId('skill-card-team-standup').count()).toBe(0)
  await founder.getByRole('tab', { name: /Discover/ }).click()
  await founder.getByTestId('skill-card-write-a-recap').waitFor()
  expect(await founder.getByTestId('skill-card-team-standup').count()).toBe(0)
  expect(errors).toEqual([])
})
