// The scripted loopback model of the learning automates: the AI helpers' Mistral fake (real
// chat-completions shapes) answering what each test scripts — a JSON object, invalid JSON,
// an HTTP failure — and the environment that points the facade at it and nowhere else.
import type { Db } from '#db/client'
import { createAiFacade, type AiFacade } from '#layers/ai/core/facade'
import { openAiStyle } from '#layers/ai/tests/fakes/providers'
import { startFakeServer, type FakeAnswer, type FakeServer, type RecordedRequest } from '#layers/ai/tests/fakes/server'

export const MODEL_KEY = 'learning-test-mistral-key'

export interface ScriptedModel {
  server: FakeServer
  env: Record<string, string>
  requests: () => RecordedRequest[]
  /** Every user prompt the model received, in order. */
  prompts: () => string[]
  /** Answer the next requests with these message contents (objects are sent as JSON). */
  answer: (...contents: Array<string | Record<string, unknown>>) => void
  /** The answer when nothing is scripted. */
  byDefault: (reply: (prompt: string) => string | Record<string, unknown>) => void
  /** The next requests fail at the HTTP level (the model is down). */
  fail: (times: number, answer?: FakeAnswer) => void
  facade: (db?: Db) => AiFacade
  reset: () => void
  close: () => Promise<void>
}

type Message = { role: string, content: string }
const messages = (request: RecordedRequest) => (request.body.messages as Message[] | undefined) ?? []
const text = (content: string | Record<string, unknown>) => (typeof content === 'string' ? content : JSON.stringify(content))

export async function startScriptedModel(): Promise<ScriptedModel> {
  let fallback: (prompt: string) => string | Record<string, unknown> = () => ({ destination: 'reflex', suggestion: 'default', diff_before: '', diff_after: 'default line' })
  const queue: string[] = []
  const server = await startFakeServer(openAiStyle({
    key: MODEL_KEY,
    flavour: 'mistral',
    reply: (request) => {
      const next = queue.shift()
      if (next !== undefined) return next
      return text(fallback(messages(request).filter(m => m.role === 'user').at(-1)?.content ?? ''))
    },
  }))
  const chats = () => server.requests.filter(r => r.path === '/v1/chat/completions')
  const env = { MISTRAL_API_KEY: MODEL_KEY, MISTRAL_BASE_URL: `${server.url}/v1`, AI_OFFLINE_FALLBACK: '0' }
  return {
    server,
    env,
    requests: chats,
    prompts: () => chats().map(request => messages(request).filter(m => m.role === 'user').at(-1)?.content ?? ''),
    answer: (...contents) => void queue.push(...contents.map(text)),
    byDefault: (reply) => {
      fallback = reply
    },
    fail: (times, answer = { status: 500, body: { message: 'Internal error' } }) => server.script(...Array.from({ length: times }, () => answer)),
    facade: db => createAiFacade({ env, db, sleep: async () => {}, log: () => {} }),
    reset: () => {
      queue.length = 0
      server.reset()
    },
    close: () => server.close(),
  }
}
