// Agents: assembling one metier briefing with scar recall (the agent's own scars first, then
// global ones), p50 — on native PostgreSQL with the seeded roster and 3,000 scars (2 per
// agent, the rest global: each briefing takes its own two, then one global) embedded by the real vector sync through the offline embedder
// (deterministic, in-process: what is measured is the database, the recall engine and the
// briefing assembly with its tokenizer, not a provider).
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { learnLessons } from '../db/schema/learn'
import { createAiFacade } from '../layers/ai/core/facade'
import { facadeEmbedder } from '../layers/memory/core/vectors/embedder'
import { syncVectors } from '../layers/memory/core/vectors/sync'
import { formatBriefing } from '../layers/agents/core/briefing'
import { scarRecallFrom } from '../layers/agents/core/memory-adapters'
import { ROSTER } from '../layers/agents/core/roster/index'
import { seedAgents } from '../layers/agents/core/seed'
import { percentile, sample, type BenchFigure } from './lib'
import { nativeBenchDatabase } from './databases'

const OFFLINE = { AI_OFFLINE: '1' }
const SCARS = 3000
const OWN_PER_AGENT = 2
const BRIEFINGS = 200

const log = (line: string) => process.stderr.write(`[bench] agents: ${line}\n`)

function words(seed: number) {
  const vocabulary = ['deploy', 'webhook', 'migration', 'secret', 'cache', 'timeout', 'retry', 'invoice', 'form', 'image', 'index', 'lock', 'cron', 'mail', 'faq', 'cover', 'podcast', 'contrast', 'focus', 'query', 'log', 'tenant', 'token', 'render', 'mobile', 'seo', 'title', 'payload', 'queue', 'backup']
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  return (length: number) => Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(' ')
}

export default async function (): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('agents', { max: 3 })
  try {
    const { db } = database
    await seedAgents(db)
    const text = words(11)
    const rows = Array.from({ length: SCARS }, (_, i) => ({
      title: `Scar ${i}: ${text(4)}`,
      description: text(24),
      checkAdded: text(8),
      importance: i % 11,
      agent: i < ROSTER.length * OWN_PER_AGENT ? ROSTER[i % ROSTER.length]!.codename : null,
    }))
    for (let start = 0; start < rows.length; start += 500) await db.insert(learnLessons).values(rows.slice(start, start + 500))
    const ai = createAiFacade({ env: OFFLINE, db, embedThrottleMs: 0, log: () => {} })
    const embedder = facadeEmbedder(ai, { feature: 'agents_bench' })
    const sync = await syncVectors({ db, embedder, reflexDir: join(tmpdir(), 'synedre-bench-no-reflex') }, { sources: ['scar'] })
    log(`embedded ${sync.embedded} scars`)
    await ai.flush()

    const recallScars = scarRecallFrom({ db, embedder }, { readOnly: true })
    const tasks = Array.from({ length: 50 }, () => text(6))
    let i = 0
    let own = 0
    let served = 0
    let tokens = 0
    const durations = await sample(async () => {
      const n = i++
      const briefing = await formatBriefing({ db, recallScars }, { codename: ROSTER[n % ROSTER.length]!.codename, task: tasks[n % tasks.length]!, scars: 3 })
      own += briefing.scars.filter(s => s.origin === 'own').length
      served += briefing.scars.length
      tokens += briefing.tokens
    }, BRIEFINGS)
    const p50 = percentile(durations, 50) / 1000
    log(`metier briefing p50 ${p50.toFixed(2)} ms, p95 ${(percentile(durations, 95) / 1000).toFixed(2)} ms; ${served} scars served (${own} own), ${Math.round(tokens / i)} tokens on average`)
    return [{
      name: 'agents.briefing_metier_ms',
      value: Number(p50.toFixed(2)),
      unit: 'ms',
      lowerIsBetter: true,
      context: { side: 'native', agents: ROSTER.length, scars: SCARS, ownPerAgent: OWN_PER_AGENT, briefings: BRIEFINGS, scarsPerBriefing: 3, recall: 'hybrid, scope scar, own then global (two recalls when own < k)', embedder: 'offline (in-process)', tokenizer: 'o200k_base', p95Ms: Number((percentile(durations, 95) / 1000).toFixed(2)) },
    }]
  }
  finally {
    await database.close()
  }
}
