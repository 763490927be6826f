// Role-aware pages in a real browser (issue 36, Deliver 1 and 2): a viewer walks every hub page
// and finds no visible, enabled write control whose route their role may not call (a write
// control names its route in `data-write`; tests/unit/write-controls.test.ts holds every one
// to its `useCan()` guard); an operator sees the same controls enabled, so the markers do reach
// the page. Stopping a custom agent asks once, says what stops, and its toast's Undo resumes it.
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { hydrated, launchBrowser, signInPage } from '../helpers/browser'
import { ROOT } from '../helpers/processes'
import { roleMayCall, type Route } from '#shared/access'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { recordFromMessage, worksite } from '#layers/worksites/tests/fixtures/world'
import { spawnOn } from '#layers/learning/tests/fixtures/spawns'
import { createDraft } from '#layers/agents/core/custom/drafts'
import { createToolRegistry } from '#layers/agents/core/engine/tools'
import { syncAutomations } from '#layers/health/core/automations'
import { DEFAULT_CRONTAB, readCrontab } from '#automates/supervisor'
import { automates } from '#automates/registry'

const VIEWER = { email: 'viewer@studio.test', password: 'viewer-password-123' }
const OPERATOR = { email: 'operator@studio.test', password: 'operator-password-123' }
const AGENT = { codename: 'weekly-digest', nickname: 'Digest' }
const POLL = { timeout: 10_000 }

let hub: Hub
let browser: Browser
let cookies: Record<'founder' | 'operator' | 'viewer', string>
/** Page file (relative to the root) → the address that opens it, filled once the data is seeded. */
let addresses: Record<string, string> = {}

/** Pages not walked, each with why: the signed-out pages. */
const NOT_WALKED: Record<string, string> = {
  'pages/index.vue': 'redirects to /hub',
  'pages/login.vue': 'signed out',
  'pages/reset/[token].vue': 'signed out: a one-time link',
  'pages/welcome/[token].vue': 'signed out: a one-time link',
}

function pageFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return pageFiles(path)
    return name.endsWith('.vue') ? [relative(ROOT, path)] : []
  })
}

const call = async <T>(method: string, path: string, cookie: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  expect(response.status, `${method} ${path}: ${response.status}`).toBeLessThan(300)
  return await response.json() as T
}

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  cookies = await signInEveryRole(hub)
  const database = await hubDatabase(hub)
  let seeded: {
    message: number
    awaiting: number
    site: Awaited<ReturnType<typeof worksite>>
    question: string
    automation: string
    spawn: string
    draft: string
  }
  try {
    const db = database.db
    const entries = readCrontab(DEFAULT_CRONTAB)
    const definitions = new Map(await Promise.all(entries.map(async e => [e.automation, await automates[e.automation]!()] as const)))
    await syncAutomations(db, entries, name => definitions.get(name))
    // A chantier draft (the drafts page's Promote and Reject) and a question of the registry.
    await recordFromMessage(db, 'chantier', { subject: 'Rebuild the bakery website' })
    seeded = {
      message: await classifiedMessage(db, { subject: 'The export misses the VAT column' }),
      awaiting: await classifiedMessage(db, { subject: 'A stranger asks for a quote', admission: 'awaiting', status: 'awaiting_approval' }),
      site: await worksite(db, 2),
      question: (await recordFromMessage(db, 'question', { subject: 'Is our cookie banner compliant?' })).record.id,
      automation: entries[0]!.automation,
      spawn: '',
      draft: (await createDraft(db, createToolRegistry([]), { ownerEmail: VIEWER.email, role: 'viewer', runId: null, codename: 'drafted', nickname: 'Drafted', description: 'Proposed by the viewer\'s agent.' })).id,
    }
    seeded.spawn = await spawnOn(db, { taskId: seeded.site.tasks[0]!.id, status: 'failed' })
  }
  finally {
    await database.close()
  }
  // A turn of the viewer's own agent: its run page.
  const run = await call<{ runId: string }>('POST', '/api/agents/chat', cookies.viewer, { request: 'What changed this week?' })
  const skill = await call<{ id: number }>('POST', '/api/skills', cookies.operator, { name: 'viewer-walk-recap', description: 'When a recap of the week is asked.', body: 'List what shipped.' })
  await call('POST', '/api/agents/custom', cookies.operator, { ...AGENT, template: 'blank' })
  // Shared with the viewer to use: they open its page (a run of it is theirs to start).
  await call('POST', `/api/agents/custom/${AGENT.codename}/shares`, cookies.operator, { email: VIEWER.email, level: 'use' })
  addresses = {
    'pages/hub/index.vue': '/hub',
    'pages/hub/account.vue': '/hub/account',
    'pages/hub/activity.vue': '/hub/activity',
    'pages/hub/api.vue': '/hub/api',
    'pages/hub/people/index.vue': '/hub/people',
    'layers/atlas/pages/hub/atlas/index.vue': '/hub/atlas',
    'layers/atlas/pages/hub/atlas/[id].vue': `/hub/atlas/${seeded.message}`,
    'layers/clients/pages/hub/clients/index.vue': '/hub/clients',
    'layers/agents/pages/hub/agents/index.vue': '/hub/agents',
    'layers/agents/pages/hub/agents/[codename].vue': '/hub/agents/orchestrator',
    'layers/agents/pages/hub/agents/custom/index.vue': '/hub/agents/custom',
    'layers/agents/pages/hub/agents/custom/[codename].vue': `/hub/agents/custom/${AGENT.codename}?tab=settings`,
    'layers/agents/pages/hub/agents/instructions.vue': '/hub/agents/instructions',
    'layers/agents/pages/hub/agents/models.vue': '/hub/agents/models',
    'layers/agents/pages/hub/agents/mcp.vue': '/hub/agents/mcp',
    'layers/agents/pages/hub/agents/runs/index.vue': '/hub/agents/runs',
    'layers/agents/pages/hub/agents/runs/[id].vue': `/hub/agents/runs/${run.runId}`,
    'layers/agents/pages/hub/agents/custom/drafts/[id].vue': `/hub/agents/custom/drafts/${seeded.draft}`,
    'layers/hub/pages/hub/atlas/spawns/[id].vue': `/hub/atlas/spawns/${seeded.spawn}`,
    'layers/memory/pages/hub/memory/index.vue': '/hub/memory',
    'layers/memory/pages/hub/memory/vault.vue': '/hub/memory/vault',
    'layers/memory/pages/hub/memory/reflex.vue': '/hub/memory/reflex',
    'layers/memory/pages/hub/memory/user-model.vue': '/hub/memory/user-model',
    'layers/memory/pages/hub/memory/briefs.vue': '/hub/memory/briefs',
    'layers/learning/pages/hub/learning/index.vue': '/hub/learning',
    'layers/learning/pages/hub/learning/skill-proposals.vue': '/hub/learning/skill-proposals',
    'layers/skills/pages/hub/skills/index.vue': '/hub/skills',
    'layers/skills/pages/hub/skills/[id].vue': `/hub/skills/${skill.id}`,
    'layers/ai/pages/hub/ai/index.vue': '/hub/ai',
    'layers/ai/pages/hub/usage/index.vue': '/hub/usage',
    'layers/worksites/pages/hub/worksites/index.vue': '/hub/worksites',
    'layers/worksites/pages/hub/worksites/drafts.vue': '/hub/worksites/drafts',
    'layers/worksites/pages/hub/worksites/projects/[id].vue': `/hub/worksites/projects/${seeded.site.project.id}`,
    'layers/worksites/pages/hub/worksites/chantiers/[id].vue': `/hub/worksites/chantiers/${seeded.site.chantier.id}`,
    'layers/worksites/pages/hub/worksites/jobs/[id].vue': `/hub/worksites/jobs/${seeded.site.job.id}`,
    'layers/worksites/pages/hub/worksites/tasks/[id].vue': `/hub/worksites/tasks/${seeded.site.tasks[0]!.id}`,
    'layers/worksites/pages/hub/worksites/registries/[kind]/index.vue': '/hub/worksites/registries/questions',
    'layers/worksites/pages/hub/worksites/registries/[kind]/[id].vue': `/hub/worksites/registries/questions/${seeded.question}`,
    'layers/health/pages/hub/health/index.vue': '/hub/health',
    'layers/health/pages/hub/health/automations/[name].vue': `/hub/health/automations/${encodeURIComponent(seeded.automation)}`,
    'layers/settings/pages/hub/settings/index.vue': '/hub/settings',
    // The message waiting for approval: its Approve and Reject are an operator's.
    'awaiting approval': `/hub/atlas/${seeded.awaiting}`,
  }
  browser = await launchBrowser()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await hub?.interrupt()
})

async function signedIn(who: { email: string, password: string }): Promise<{ context: BrowserContext, page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  await signInPage(page, hub.url, who)
  return { context, page }
}

/** The visible write controls of the page, each with its route and whether a person could use it now. */
async function writeControls(page: Page): Promise<Array<{ route: string, enabled: boolean, text: string }>> {
  return await page.evaluate(() => {
    const CONTROLS = 'button, input, textarea, select, a[href], [role="switch"], [role="checkbox"], [contenteditable="true"]'
    const usable = (el: Element) => {
      const control = el as HTMLElement & { disabled?: boolean, readOnly?: boolean }
      return !control.disabled && !control.readOnly && el.getAttribute('aria-disabled') !== 'true' && !el.closest('fieldset:disabled')
    }
    const visible = (el: Element) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
    return Array.from(document.querySelectorAll('[data-write]')).filter(visible).map((el) => {
      // A component may put the marker on its wrapper: the control is then inside.
      const controls = el.matches(CONTROLS) ? [el] : Array.from(el.querySelectorAll(CONTROLS))
      return { route: el.getAttribute('data-write') ?? '', enabled: controls.some(usable), text: (el.textContent ?? el.getAttribute('aria-label') ?? '').trim().slice(0, 60) }
    })
  })
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(`${hub.url}${path}`)
  await hydrated(page)
  // Parts fetched lazily (tables, cards) render after hydration.
  await page.waitForLoadState('networkidle')
}

describe('a viewer', () => {
  it('walks every page of the hub (each page file has its address or a stated reason)', () => {
    const files = [...pageFiles(join(ROOT, 'pages')), ...readdirSync(join(ROOT, 'layers')).flatMap((layer) => {
      const dir = join(ROOT, 'layers', layer, 'pages')
      try {
        return pageFiles(dir)
      }
      catch {
        return []
      }
    })]
    expect(files.length).toBeGreaterThan(40)
    expect(files.filter(file => !(file in addresses) && !(file in NOT_WALKED))).toEqual([])
  })

  it('finds no visible enabled write control their role may not use, on any page', async () => {
    const { context, page } = await signedIn(VIEWER)
    const found: Record<string, string[]> = {}
    let seen = 0
    try {
      for (const path of Object.values(addresses)) {
        await open(page, path)
        const controls = await writeControls(page)
        seen += controls.length
        const refused = controls.filter(c => c.route && !roleMayCall('viewer', c.route as Route))
        const unnamed = controls.filter(c => !c.route)
        const problems = [...refused.filter(c => c.enabled).map(c => `${c.route} "${c.text}" enabled`), ...unnamed.map(c => `"${c.text}" names no route`)]
        if (problems.length > 0) found[path] = problems
      }
    }
    finally {
      await context.close()
    }
    expect(found).toEqual({})
    // The viewer's own writes (enabling a skill for themself, running an agent shared with them) remain.
    expect(seen).toBeGreaterThan(0)
  }, 600_000)
})

describe('an operator', () => {
  it('sees the controls a viewer does not: New skill, Import SKILL.md, New agent, Re-classify, Save on reflex memory', async () => {
    const { context, page } = await signedIn(OPERATOR)
    try {
      const routesOn = async (path: string) => {
        await open(page, path)
        return (await writeControls(page)).filter(c => c.enabled).map(c => c.route)
      }
      expect(await routesOn('/hub/skills')).toEqual(expect.arrayContaining(['POST /api/skills', 'PUT /api/skills/:id/enablement']))
      await open(page, '/hub/skills')
      expect(await page.locator('[data-write="POST /api/skills/import"]').count()).toBe(2)
      expect(await routesOn('/hub/agents/custom')).toContain('POST /api/agents/custom')
      // Re-classify is shown to an operator; whether it is enabled depends on the message's status.
      await open(page, addresses['layers/atlas/pages/hub/atlas/[id].vue']!)
      expect((await writeControls(page)).map(c => c.route)).toContain('POST /api/atlas/messages/:id/reclassify')
      // Save is enabled once the text changed; the text itself is the operator's to edit.
      expect(await routesOn('/hub/memory/reflex')).toContain('PUT /api/memory/reflex')
      expect(await page.getByTestId('reflex-save').count()).toBe(1)
      await open(page, addresses['awaiting approval']!)
      expect((await writeControls(page)).map(c => c.route)).toEqual(expect.arrayContaining(['POST /api/atlas/messages/:id/approve', 'POST /api/atlas/messages/:id/reject']))
    }
    finally {
      await context.close()
    }
  }, 240_000)

  it('is asked once before stopping a custom agent, told what stops, and resumes it from the toast\'s Undo', async () => {
    const { context, page } = await signedIn(OPERATOR)
    const killed = async () => (await call<{ agent: { killed: boolean } }>('GET', `/api/agents/custom/${AGENT.codename}`, cookies.operator)).agent.killed
    try {
      await open(page, `/hub/agents/custom/${AGENT.codename}`)
      await page.getByTestId('custom-kill').click()
      const dialog = page.getByRole('dialog')
      await dialog.getByText(`Stop new runs of ${AGENT.nickname}?`).waitFor()
      expect(await dialog.innerText()).toContain('Runs in progress finish; no new run starts')
      // Nothing stopped while the question is on screen; Cancel leaves it running.
      expect(await killed()).toBe(false)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
      expect(await killed()).toBe(false)

      await page.getByTestId('custom-kill').click()
      await page.getByTestId('custom-kill-confirm').click()
      await expect.poll(killed, POLL).toBe(true)
      await page.getByTestId('custom-killed').waitFor()
      await page.getByRole('button', { name: 'Undo', exact: true }).click()
      await expect.poll(killed, POLL).toBe(false)
      await page.getByTestId('custom-killed').waitFor({ state: 'detached' })
    }
    finally {
      await context.close()
    }
  }, 120_000)
})
