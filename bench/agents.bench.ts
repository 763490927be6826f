// Agents: assembling one metier briefing with scar recall (the agent's own scars first, then
// global ones), p50 — on native PostgreSQL with the seeded roster and 3,000 scars (2 per
// agent, the rest global: each briefing takes its own two, then one global) embedded by the real vector sync through the offline embedder
// (deterministic, in-process: what is measured is the database, the recall engine and the
// briefing assembly with its tokenizer, not a provider).
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { learnLessons } from '#db/schema/learn'
import { createAiFacade } from '#layers/ai/core/facade'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { formatBriefing } from '#layers/agents/core/briefing'
import { scarRecallFrom } from '#layers/agents/core/memory-adapters'
import { ROSTER } from '#layers/agents/core/roster/index'
import { seedAgents } from '#layers/agents/core/seed'
import { agents } from '#db/schema/agents'
import { agentCustom, agentEventCursors, agentTriggers } from '#db/schema/custom-agents'
import { workTransitions } from '#db/schema/worksites'
import { loadTriggerIndex } from '#layers/agents/core/custom/dispatcher'
import { dispatchEventCycle } from '#layers/agents/core/custom/event-cycle'
import { EVENT_SOURCES } from '#layers/agents/core/custom/events'
import type { HubEvent } from '#layers/agents/core/custom/triggers'
import { percentile, sample, sized, type BenchFigure } from './lib'
import { nativeBenchDatabase } from './databases'

const OFFLINE = { AI_OFFLINE: '1' }
// BENCH_SIZE=tiny (bench/lib.ts): 100 scars (the roster's own two each, then global ones), 10 briefings.
const SCARS = sized(3000, 100)
const OWN_PER_AGENT = 2
const BRIEFINGS = sized(200, 10)

const log = (line: string) => process.stderr.write(`[bench] agents: ${line}\n`)

function words(seed: number) {
  const vocabulary = ['deploy', 'webhook', 'migration', 'secret', 'cache', 'timeout', 'retry', 'invoice', 'form', 'image', 'index', 'lock', 'cron', 'mail', 'faq', 'cover', 'podcast', 'contrast', 'focus', 'query', 'log', 'tenant', 'token', 'render', 'mobile', 'seo', 'title', 'payload', 'queue', 'backup']
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  return (length: number) => Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(' ')
}

const TRIGGERS = 500
const MATCHED = sized(50_000, 2_000)
// The burst is 5,000 events at every BENCH_SIZE (tiny shortens only the pure matching loop).
const BURST = 5_000

/**
 * agents.dispatch_events_per_s: a burst of 5,000 hub events in the database — 4,000 work item
 * transitions (half at one identical timestamp) and 1,000 lessons (all at another) — through
 * the dispatcher's event cycle against 500 enabled triggers (50 custom agents × 10: event
 * triggers with eq / neq / contains / changed filters, mentions, mail): read after the
 * stored cursors in (time, id) pages of 500, matched, and the few matches claimed (one insert
 * each; the run launch is a stub). As in a busy hour, most events wake nobody: two transitions
 * match (30 triggers each, most then capped by their agents' hourly cap).
 */
async function dispatchFigure(db: Awaited<ReturnType<typeof nativeBenchDatabase>>['db']): Promise<BenchFigure> {
  const names = Array.from({ length: TRIGGERS / 10 }, (_, i) => `bench-custom-${i}`)
  await db.insert(agents).values(names.map(codename => ({ codename, nickname: codename })))
  await db.insert(agentCustom).values(names.map(codename => ({ codename, ownerEmail: 'bench@studio.test' })))
  const statuses = ['todo', 'doing', 'review', 'done', 'blocked']
  const intents = ['run', 'chantier', 'question', 'noise', 'negociation', 'conseil']
  await db.insert(agentTriggers).values(names.flatMap((codename, a) => Array.from({ length: 10 }, (_, t) => {
    const n = a * 10 + t
    if (t === 9) return { codename, kind: 'mention' }
    if (t === 8) return { codename, kind: 'mail', event: '00000000-0000-4000-8000-000000000001', filters: [] }
    if (t % 3 === 0) return { codename, kind: 'event', event: 'work_item_status', filters: [{ field: 'status', op: 'eq' as const, value: statuses[n % 5]! }, { field: 'status', op: 'changed' as const }] }
    if (t % 3 === 1) return { codename, kind: 'event', event: 'atlas_message', filters: [{ field: 'intent', op: 'eq' as const, value: intents[n % 6]! }, { field: 'subject', op: 'contains' as const, value: 'invoice' }] }
    return { codename, kind: 'event', event: 'lesson_recorded', filters: [{ field: 'kind', op: 'neq' as const, value: 'success' }, { field: 'title', op: 'contains' as const, value: 'deploy' }] }
  })))
  const index = await loadTriggerIndex(db)

  // The pure matching rate, for comparison with the whole cycle.
  const events: HubEvent[] = Array.from({ length: 1000 }, (_, i): HubEvent => {
    switch (i % 4) {
      case 0: return { kind: 'work_item_status', id: String(i), actor: 'p@studio.test', agent: null, fields: { status: statuses[i % 5]!, entity: 'task' }, previous: { status: statuses[(i + 1) % 5]! } }
      case 1: return { kind: 'atlas_message', id: String(i), actor: 'atlas', agent: null, fields: { intent: intents[i % 6]!, subject: i % 2 ? 'Invoice overdue' : 'Hello' } }
      case 2: return { kind: 'lesson_recorded', id: String(i), actor: 'hub', agent: null, fields: { kind: 'failure', title: 'Deploy broke the cache' } }
      default: return { kind: 'mention', id: String(i), actor: 'p@studio.test', agent: null, fields: {}, text: `Please @bench-custom-${i % 50} and @nobody look at this.` }
    }
  })
  const matchStarted = process.hrtime.bigint()
  for (let i = 0; i < MATCHED; i++) index.match(events[i % events.length]!)
  const matchPerSecond = Math.round(MATCHED / (Number(process.hrtime.bigint() - matchStarted) / 1e9))

  // The burst sits after the cursors (the briefing bench's scars before them are not part of it).
  const origin = Date.now()
  await db.insert(agentEventCursors).values(EVENT_SOURCES.map(source => ({ source, at: new Date(origin).toISOString(), lastId: 0 })))
  const transitions = Array.from({ length: BURST * 4 / 5 }, (_, i) => {
    const moved = i === 100 || i === 3000
    return { entity: 'task', entityId: '00000000-0000-4000-8000-00000000b0b0', kind: 'transition', fromStatus: moved ? 'doing' : 'todo', toStatus: 'todo', actor: 'p@studio.test', at: new Date(origin + 1 + (i < BURST * 2 / 5 ? 0 : i)) }
  })
  for (let i = 0; i < transitions.length; i += 1000) await db.insert(workTransitions).values(transitions.slice(i, i + 1000))
  await db.insert(learnLessons).values(Array.from({ length: BURST / 5 }, (_, i) => ({ title: `Burst lesson ${i}: cache warmed`, kind: 'success' as const, createdAt: new Date(origin + 10_000) })))
  const deps = { db, now: () => new Date(origin + 60_000), launch: async () => randomUUID() }
  const started = process.hrtime.bigint()
  const cycle = await dispatchEventCycle(deps, { settleMs: 0 })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const perSecond = Math.round(cycle.events / seconds)
  const outcomes = Object.fromEntries(['fired', 'capped', 'duplicate'].map(outcome => [outcome, cycle.results.filter(result => result.outcome === outcome).length]))
  log(`dispatch: a burst of ${cycle.events} events in ${cycle.pages} pages against ${index.size} triggers in ${seconds.toFixed(3)} s (${perSecond}/s), ${JSON.stringify(outcomes)}; matching alone ${matchPerSecond}/s`)
  if (cycle.events !== BURST || !cycle.drained) throw new Error(`the cycle read ${cycle.events} of ${BURST} events (drained: ${cycle.drained})`)
  return {
    name: 'agents.dispatch_events_per_s',
    value: perSecond,
    unit: 'events/s',
    lowerIsBetter: false,
    context: { side: 'native', triggers: index.size, events: cycle.events, pages: cycle.pages, claims: cycle.results.length, ...outcomes, matchOnlyPerSecond: matchPerSecond, goal: '> 5000/s', path: 'cursor pages of 500 in (time, id) order → trigger index → one claim insert per match' },
  }
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
      const briefing = await formatBriefing(
        { db, recallScars },
        { codename: ROSTER[n % ROSTER.length]!.codename, task: tasks[n % tasks.length]!, scars: 3 },
      )
      own += briefing.scars.filter(s => s.origin === 'own').length
      served += briefing.scars.length
      tokens += briefing.tokens
    }, BRIEFINGS)
    const p50 = percentile(durations, 50) / 1000
    log(`metier briefing p50 ${p50.toFixed(2)} ms, p95 ${(percentile(durations, 95) / 1000).toFixed(2)} ms; ${served} scars served (${own} own), ${Math.round(tokens / i)} tokens on average`)
    const dispatch = await dispatchFigure(db)
    return [dispatch, {
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
