// A new studio's first morning, in chromium against a fresh `npm start`, with nothing done in
// SQL: the founder adds a client (its domain, its repository, its own model provider), an
// operator account and a token; a mail from the client's authenticated domain, stamped by the
// studio's receiving server and dropped into the Atlas folder, is classified by the client's
// own provider (not the studio's), admitted as the client's, and spawns the stand-in agent in a
// checkout of the client's repository. The token then reads the inbox without a cookie.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { FOUNDER, hubDatabase, startHub, type Hub } from '../helpers/hub'
import { formField, hydrated, launchBrowser, signInPage, watchPage } from '../helpers/browser'
import { runTs } from '../helpers/processes'
import type { Database } from '#db/connection'
import { aiConsumption } from '#db/schema/ai'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { startCollectorWorld, type CollectorWorld } from '#layers/atlas/tests/fixtures/collector-world'
import { compose } from '#layers/atlas/tests/fixtures/mail'
import { json } from '#layers/atlas/tests/fakes/model'
import { openAiStyle } from '#layers/ai/tests/fakes/providers'
import { startFakeServer, type FakeServer } from '#layers/ai/tests/fakes/server'
import { startEngine, type Engine } from '#layers/spawn/tests/fixtures/engine'
import { workspacePaths } from '#layers/spawn/core/workspace'

const MX = 'mx.studio.test'
const DOMAIN = 'maison-bleue.example'
const CLIENT_KEY = 'maison-bleue-openai-key'
const SUBJECT = 'Le panier se vide tout seul'

let world: CollectorWorld
let clientModel: FakeServer
let hub: Hub
let env: Record<string, string>
let database: Database
let engine: Engine
let browser: Browser
let page: Page
let repository: string
const problems: string[] = []
const OPERATOR = { email: 'opal@studio.test', password: 'opal-first-day-phrase-1' }
let secret = ''

beforeAll(async () => {
  world = await startCollectorWorld('new-studio')
  // The studio's own provider (Mistral) would say "noise"; the client's (OpenAI) says "question".
  world.model.byDefault(() => json('noise', 0.9))
  clientModel = await startFakeServer(openAiStyle({ key: CLIENT_KEY, flavour: 'openai', reply: () => json('question', 0.95) }))
  repository = mkdtempSync(join(tmpdir(), 'maison-bleue-site-'))
  execFileSync('git', ['init', '--quiet', repository])
  writeFileSync(join(repository, 'README.md'), '# Maison Bleue, the shop\n')
  execFileSync('git', ['-C', repository, 'add', 'README.md'])
  execFileSync('git', ['-C', repository, '-c', 'user.name=Test', '-c', 'user.email=test@localhost', 'commit', '--quiet', '-m', 'init'])
  env = {
    ...world.dovecot.env(world.user, 'INBOX'),
    ...world.model.env,
    OPENAI_API_KEY: CLIENT_KEY,
    OPENAI_BASE_URL: `${clientModel.url}/v1`,
    CLAMAV_DATABASE: world.clamdb.dir,
    CLAMD_HOST: '',
    ATLAS_OCR_ENABLED: '0',
    ATLAS_TMP_DIR: world.scratch,
    ATLAS_TRUSTED_AUTHSERV_IDS: MX,
    ATLAS_SPAWN_DISABLED: '1',
  }
  hub = await startHub({ args: ['--no-supervisor'], env })
  database = await hubDatabase(hub, 4)
  browser = await launchBrowser()
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  watchPage(page, problems)
  await signInPage(page, hub.url, FOUNDER)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await engine?.close()
  await database?.close()
  await hub?.interrupt()
  await clientModel?.close()
  await world?.close()
  if (repository) rmSync(repository, { recursive: true, force: true })
})

it('the founder adds a client with its domain, its repository and its own provider', async () => {
  await page.goto(`${hub.url}/hub/clients`)
  await page.getByTestId('client-add').click()
  await page.getByTestId('client-name').fill('Maison Bleue')
  await page.getByTestId('client-domains').fill(DOMAIN)
  await page.getByTestId('client-contacts').fill(`Camille | camille@${DOMAIN} | marketing`)
  await page.getByTestId('client-repository').fill(repository)
  await page.getByTestId('client-provider').click()
  await page.getByRole('option', { name: /openai/i }).first().click()
  await page.getByTestId('client-save').click()
  await page.getByTestId('clients-table').locator('tr', { hasText: 'Maison Bleue' }).waitFor()
})

it('the founder adds an operator account with a password typed there, who signs in', async () => {
  await page.goto(`${hub.url}/hub/people`)
  await hydrated(page)
  await page.getByTestId('person-add').click()
  await formField(page, 'person-email', 'input').fill(OPERATOR.email)
  await formField(page, 'person-name', 'input').fill('Opal')
  await page.getByTestId('person-way').getByText('A password I type now').click()
  await formField(page, 'person-password', 'input').fill(OPERATOR.password)
  await page.getByTestId('person-save').click()
  const row = page.getByTestId('people-table').locator('tr', { hasText: OPERATOR.email })
  await row.waitFor({ timeout: 15_000 })
  expect(await row.innerText()).toContain('operator')
  const theirs = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  try {
    await signInPage(theirs, hub.url, OPERATOR)
    expect(await theirs.getByTestId('user-role').innerText()).toBe('operator')
  }
  finally {
    await theirs.context().close()
  }
})

it('the founder creates a token that reads the inbox and starts agents', async () => {
  await page.goto(`${hub.url}/hub/account`)
  await hydrated(page)
  await page.getByTestId('token-create').click()
  await formField(page, 'token-name').fill('studio script')
  for (const [domain, access] of [['atlas', 'read'], ['agents', 'write']] as const) {
    await page.getByTestId(`token-scope-${domain}`).click()
    await page.getByRole('option', { name: access, exact: true }).click()
  }
  await page.getByTestId('token-submit').click()
  await page.getByTestId('token-secret').waitFor()
  secret = await page.getByLabel('The token').inputValue()
  expect(secret).toMatch(/^syn_[\w-]{43}$/)
  await page.getByRole('button', { name: 'Done' }).click()
  await page.getByTestId('tokens-table').getByText('studio script').waitFor()
})

it('classifies the client\'s authenticated mail with the client\'s own provider, and admits it as the client\'s', async () => {
  const raw = await compose({ from: `Camille <camille@${DOMAIN}>`, subject: SUBJECT, text: 'Depuis hier, le panier est vide après un rafraîchissement.' })
  // What the studio's receiving server puts on top: its verdicts over its Received.
  const stamp = `Authentication-Results: ${MX}; dkim=pass header.d=${DOMAIN} header.s=s1; spf=pass smtp.mailfrom=camille@${DOMAIN}; dmarc=pass header.from=${DOMAIN}\r\n`
    + `Received: from mail.${DOMAIN} (mail.${DOMAIN} [203.0.113.7]) by ${MX} with ESMTPS id 4Bq; Mon, 2 Nov 2026 09:00:02 +0000\r\n`
  await world.dovecot.append(world.user, 'INBOX', [Buffer.concat([Buffer.from(stamp), raw])])
  const collected = await runTs('automates/run.ts', ['atlas-collect'], { env: { DATA_DIR: hub.dataDir, ...env } })
  expect(collected.code, collected.output).toBe(0)

  const asked = clientModel.requests.filter(request => request.path === '/v1/chat/completions')
  expect(asked.length).toBeGreaterThanOrEqual(1)
  expect(JSON.stringify(asked[0]!.body)).toContain(SUBJECT)
  expect(world.model.requests().filter(request => JSON.stringify(request.body).includes(SUBJECT))).toEqual([])
  const ledger = await database.db
    .select({ provider: aiConsumption.provider, tenant: aiConsumption.tenant, feature: aiConsumption.feature })
    .from(aiConsumption)
  expect(ledger).toEqual(expect.arrayContaining([{ provider: 'openai', tenant: 'maison-bleue', feature: 'atlas_classify' }]))

  await page.goto(`${hub.url}/hub/atlas`)
  const row = page.getByTestId('atlas-inbox').locator('tr', { hasText: SUBJECT })
  await row.waitFor({ timeout: 30_000 })
  expect(await row.innerText()).toContain('Maison Bleue')
  await row.getByRole('link', { name: SUBJECT }).click()
  // An authenticated contact of a client is admitted by the policy itself (no person needed;
  // a stranger's message waiting for a person's approval is loop-hub.test.ts's).
  const admission = page.getByTestId('atlas-admission')
  await admission.getByTestId('atlas-admission-state').getByText('May start an agent automatically').waitFor()
  expect(await admission.innerText()).toContain('authenticated contact of Maison Bleue')
  expect(await page.getByTestId('atlas-approve').count()).toBe(0)
})

it('spawns the stand-in agent in a checkout of the client\'s repository', async () => {
  engine = await startEngine(database.db, database.url, { SPAWN_KEEP_WORKDIR: 'always', STAND_IN_VARIANT: 'success', STAND_IN_LINGER_MS: '0' })
  await engine.cycle()
  await engine.drain()
  const [spawn] = await database.db.select().from(atlasSpawns).orderBy(atlasSpawns.queuedAt)
  expect(spawn, engine.logs.join('\n')).toBeDefined()
  const work = workspacePaths(engine.spawnRoot, spawn!.id).workDir
  expect(readFileSync(join(work, 'README.md'), 'utf8')).toBe('# Maison Bleue, the shop\n')
  expect(spawn!.status, engine.logs.join('\n')).not.toBe('queued')
  expect(problems).toEqual([])
})

it('the token, without a cookie, finds the client\'s message in the inbox', async () => {
  const listed = await fetch(`${hub.url}/api/atlas/inbox?pageSize=50`, { headers: { authorization: `Bearer ${secret}` } })
  expect(listed.status).toBe(200)
  expect(JSON.stringify(await listed.json())).toContain(SUBJECT)
  // Read only on atlas: a write is refused.
  const write = await fetch(`${hub.url}/api/atlas/reply-drafts`, { method: 'POST', headers: { 'authorization': `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{}' })
  expect(write.status).toBe(403)
})
