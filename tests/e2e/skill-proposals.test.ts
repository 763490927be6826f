// Skill proposals and the debrief in a browser, against the real hub (issue 18, Deliver 5 and
// 6): the founder reads a proposal's evidence and promotes it (the skills registry gets the
// row), a viewer sees the proposals but no button; an operator asks a project's debrief from
// the project page, overriding the ROI guard, and the draft lands in the vault inbox.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { hubDatabase, FOUNDER, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { launchBrowser, signInPage } from '../helpers/browser'
import type { Database } from '#db/connection'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { skills } from '#db/schema/skills'
import { worksite } from '#layers/worksites/tests/fixtures/world'

const AGENT = fileURLToPath(new URL('../../layers/learning/tests/fixtures/debrief-agent.mjs', import.meta.url))

let hub: Hub
let browser: Browser
let database: Database
let proposalId = 0
let projectId = ''

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1', SPAWN_AGENT_BIN: AGENT, DEBRIEF_AGENT_MODE: 'ok' } })
  database = await hubDatabase(hub, 2)
  const [row] = await database.db.insert(learnSkillProposals).values({
    pattern: 'Every deploy starts with a screenshot of the changed pages', name: 'screenshot-first', description: 'Screenshot each changed page before deploying.',
    body: '1. List the changed pages.\n2. Screenshot each.', fingerprint: 'screenshot-first', proposedBy: 'learning-skill-detector',
    evidence: [{ spawnId: '00000000-0000-4000-8000-000000000001', excerpt: 'assistant: took a screenshot of /home' }],
  }).returning()
  proposalId = row!.id
  projectId = (await worksite(database.db, 1)).project.id
  await signInEveryRole(hub)
  browser = await launchBrowser()
}, 240_000)

afterAll(async () => {
  await database?.close()
  await browser?.close()
  await hub?.interrupt()
})

async function pageAs(who: { email: string, password: string }): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  await signInPage(page, hub.url, who)
  return page
}

describe('skill proposals and the debrief in the hub', () => {
  it('a viewer sees the proposal and its evidence, without any button', async () => {
    const page = await pageAs({ email: 'viewer@studio.test', password: 'viewer-password-123' })
    await page.goto(`${hub.url}/hub/learning/skill-proposals`)
    const card = page.getByTestId(`skill-proposal-${proposalId}`)
    await expect.poll(() => card.isVisible(), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('/screenshot-first')
    expect(await page.getByTestId('skill-proposal-actions').count()).toBe(0)
    await page.context().close()
  }, 60_000)

  it('the founder promotes it: the skills registry holds the row and the proposal says who decided', async () => {
    const page = await pageAs(FOUNDER)
    await page.goto(`${hub.url}/hub/learning/skill-proposals`)
    const promote = page.getByTestId(`skill-proposal-promote-${proposalId}`)
    await expect.poll(() => promote.isVisible(), { timeout: 10_000 }).toBe(true)
    await promote.click()
    await expect
      .poll(
        async () =>
          (await database.db.select().from(skills).where(eq(skills.builtIn, false))).map(s => [s.name, s.sourceProposalId, s.createdBy]),
        { timeout: 10_000 },
      )
      .toEqual([['screenshot-first', proposalId, FOUNDER.email]])
    await page.getByRole('tab', { name: 'Promoted' }).click()
    await expect.poll(() => page.getByTestId(`skill-proposal-${proposalId}`).textContent(), { timeout: 10_000 }).toContain(`promoted by ${FOUNDER.email}`)
    await page.context().close()
  }, 60_000)

  it('an operator asks the debrief from the project page: refused by the ROI guard, then written with the override', async () => {
    const page = await pageAs({ email: 'operator@studio.test', password: 'operator-password-123' })
    await page.goto(`${hub.url}/hub/worksites/projects/${projectId}`)
    const open = page.getByTestId('learning-debrief-open')
    await expect.poll(() => open.isVisible(), { timeout: 10_000 }).toBe(true)
    await open.click()
    await page.getByTestId('learning-debrief-run').click()
    await expect.poll(() => page.getByTestId('learning-debrief-roi').isVisible(), { timeout: 10_000 }).toBe(true)
    await page.getByTestId('learning-debrief-force').click()
    await page.getByTestId('learning-debrief-run').click()
    const result = page.getByTestId('learning-debrief-result')
    await expect.poll(() => result.isVisible(), { timeout: 10_000 }).toBe(true)
    const path = /inbox\/debriefs\/\S+\.md/.exec((await result.textContent()) ?? '')?.[0]
    expect(path).toBeTruthy()
    expect(existsSync(join(hub.dataDir, 'vault', path!))).toBe(true)
    await page.context().close()
  }, 60_000)
})
