// The scripted loopback model for the classifier: the AI helpers' Mistral fake (real
// chat-completions request and response shapes) answering what each test scripts, and the
// environment that points the facade at it and nowhere else.
import type { Db } from '#db/client'
import { createAiFacade, type AiFacade } from '#layers/ai/core/facade'
import { openAiStyle } from '#layers/ai/tests/fakes/providers'
import { startFakeServer, type FakeServer, type RecordedRequest } from '#layers/ai/tests/fakes/server'

export const MODEL_KEY = 'atlas-test-mistral-key'

export interface ScriptedModel {
  server: FakeServer
  /** The environment for the facade (in process or in a child process). */
  env: Record<string, string>
  /** Every chat request the model received. */
  requests: () => RecordedRequest[]
  /** The user prompt of the n-th request (last by default). */
  prompt: (index?: number) => string
  system: (index?: number) => string
  /** Answer the next requests with these message contents, in order. */
  answer: (...contents: string[]) => void
  /** The answer when nothing is scripted. */
  byDefault: (reply: (prompt: string) => string) => void
  facade: (db?: Db) => AiFacade
  /** Forgets scripted answers and recorded requests. */
  reset: () => void
  close: () => Promise<void>
}

export function json(intent: unknown, confidence: unknown, reasoning = 'scripted'): string {
  return JSON.stringify({ intent, confidence, reasoning })
}

function messages(request: RecordedRequest): Array<{ role: string, content: string }> {
  return (request.body.messages as Array<{ role: string, content: string }> | undefined) ?? []
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let fallback: (prompt: string) => string = () => json('question', 0.9, 'default scripted answer')
  const queue: string[] = []
  const server = await startFakeServer(openAiStyle({
    key: MODEL_KEY,
    flavour: 'mistral',
    reply: (request) => {
      const next = queue.shift()
      if (next !== undefined) return next
      const user = messages(request).filter(m => m.role === 'user').at(-1)?.content ?? ''
      return fallback(user)
    },
  }))
  const chats = () => server.requests.filter(r => r.path === '/v1/chat/completions')
  const env = {
    MISTRAL_API_KEY: MODEL_KEY,
    MISTRAL_BASE_URL: `${server.url}/v1`,
    AI_OFFLINE_FALLBACK: '0',
  }
  return {
    server,
    env,
    requests: chats,
    prompt: (index = -1) => messages(chats().at(index)!).filter(m => m.role === 'user').at(-1)?.content ?? '',
    system: (index = -1) => messages(chats().at(index)!).find(m => m.role === 'system')?.content ?? '',
    answer: (...contents) => void queue.push(...contents),
    byDefault: (reply) => {
      fallback = reply
    },
    facade: db => createAiFacade({ env, db, sleep: async () => {}, log: () => {} }),
    reset: () => {
      queue.length = 0
      server.reset()
    },
    close: () => server.close(),
  }
}
