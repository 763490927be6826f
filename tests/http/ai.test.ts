// The AI routes through the built server, on the offline provider (no key at all).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'

let hub: Hub
let cookie: string

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { MISTRAL_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', VOYAGE_API_KEY: '', OPENAI_COMPAT_BASE_URL: '' } })
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
})

afterAll(async () => {
  await hub?.interrupt()
})

const post = (path: string, body: unknown) => fetch(`${hub.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body),
})

it('POST /api/ai/generate answers on the offline provider, labelled as such, and writes a ledger row', async () => {
  const response = await post('/api/ai/generate', { prompt: 'Résume ce ticket en une phrase.' })
  expect(response.status).toBe(200)
  const result = await response.json() as { content: string, provider: string, model: string, tokensIn: number }
  expect(result.provider).toBe('offline')
  expect(result.content.length).toBeGreaterThan(0)
  const spend = await (await fetch(`${hub.url}/api/ai/spend?days=1`, { headers: { cookie } })).json()
  expect(JSON.stringify(spend)).toContain('offline')
})

it('POST /api/ai/generate refuses a malformed body with a 400 naming the field', async () => {
  const response = await post('/api/ai/generate', { prompt: 42 })
  expect(response.status).toBe(400)
  expect(JSON.stringify(await response.json())).toContain('prompt')
})

it('the providers route says configured or not, and never shows a key', async () => {
  const response = await fetch(`${hub.url}/api/ai/providers`, { headers: { cookie } })
  expect(response.status).toBe(200)
  const text = await response.text()
  expect(text).toContain('mistral')
  expect(text).not.toMatch(/sk-|api[_-]?key"\s*:\s*"[^"]/i)
})
