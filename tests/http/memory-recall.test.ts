// Recall through the hub's route, on the offline embedder: typos, the relevance floor and the
// front matter's tenant, as a person (or an agent's briefing) reaches them.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { RecallResponse } from '#layers/memory/core/recall/types'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '../helpers/hub'

let hub: Hub
let cookie: string

const NOTES: Record<string, string> = {
  'releve-imap.md': '---\ntitle: Relevé de la boîte\ntype: concept\n---\nLe collecteur IMAP relève la boîte toutes les cinq minutes.\n',
  'brouillons-acme.md': '---\ntitle: Brouillons pour Acme\ntype: doctrine\ntenant: acme\n---\nLes réponses aux clients restent des brouillons relus avant envoi.\n',
  'brouillons-bistrot.md': '---\ntitle: Brouillons du menu\ntenant: bistrot\n---\nLes brouillons du menu sont relus par le chef avant envoi.\n',
}

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { MISTRAL_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', VOYAGE_API_KEY: '', OPENAI_COMPAT_BASE_URL: '' } })
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  const vaultDir = join(hub.dataDir, 'vault')
  mkdirSync(join(vaultDir, 'permanent'), { recursive: true })
  for (const [name, text] of Object.entries(NOTES)) writeFileSync(join(vaultDir, 'permanent', name), text)
  const database = await hubDatabase(hub, 2)
  try {
    await indexNotes({ db: database.db, vaultDir })
    await syncVectors({ db: database.db, embedder: offlineEmbedder(database.db), reflexDir: join(hub.dataDir, 'reflex') })
  }
  finally {
    await database.close()
  }
}, 180_000)

afterAll(async () => {
  await hub?.interrupt()
})

const recall = async (query: Record<string, string>) => {
  const response = await fetch(`${hub.url}/api/memory/recall?${new URLSearchParams(query)}`, { headers: { cookie } })
  return { status: response.status, body: await response.json() as RecallResponse & { data?: { code: string } } }
}

it('a misspelt word finds its note, with the expansion said', async () => {
  const { status, body } = await recall({ q: 'colecteru' })
  expect(status).toBe(200)
  expect(body.hits.map(hit => hit.sourceId)).toContain('permanent/releve-imap.md')
  expect(body.expansions).toEqual([{ word: 'colecteru', stems: expect.arrayContaining(['collecteur']) }])
})

it('a question the vault cannot answer: flagged by default, empty with floor=drop', async () => {
  const flagged = await recall({ q: 'la recette de la tarte aux pommes' })
  expect(flagged.body.lowConfidence).toBe(true)
  expect(flagged.body.hits.every(hit => hit.lowConfidence)).toBe(true)
  const dropped = await recall({ q: 'la recette de la tarte aux pommes', floor: 'drop' })
  expect(dropped.body).toMatchObject({ lowConfidence: true, hits: [] })
})

it('the tenant filter and the doctrine scope from the front matter; a bad floor is a 400', async () => {
  const acme = await recall({ q: 'brouillons relus avant envoi', tenant: 'acme', mode: 'lex' })
  // The tenant's note and the shared sources (the hub's own agents), never another tenant's.
  expect(acme.body.hits.map(hit => hit.sourceId)).toContain('permanent/brouillons-acme.md')
  expect(acme.body.hits.map(hit => hit.sourceId)).not.toContain('permanent/brouillons-bistrot.md')
  const doctrine = await recall({ q: 'brouillons relus avant envoi', scope: 'doctrine' })
  expect(doctrine.body.hits.filter(hit => hit.sourceType === 'note').map(hit => hit.sourceId)).toEqual(['permanent/brouillons-acme.md'])
  expect(doctrine.body.hits.every(hit => hit.sourceType === 'note' || hit.sourceType === 'doctrine')).toBe(true)
  const bad = await recall({ q: 'x', floor: 'hide' })
  expect(bad.status).toBe(400)
})

it('an agent\'s briefing for a task no lesson answers says "no prior knowledge found" instead of padding', async () => {
  const response = await fetch(`${hub.url}/api/agents/orchestrator/briefing?${new URLSearchParams({ task: 'la recette de la tarte aux pommes' })}`, { headers: { cookie } })
  expect(response.status).toBe(200)
  const briefing = await response.json() as { scars: unknown[], nothingRecalled: boolean, text: string }
  expect(briefing).toMatchObject({ scars: [], nothingRecalled: true })
  expect(briefing.text).toContain('No prior knowledge found: no lesson passes the relevance floor for this task.')
})
