// Closing the loop: assembling a whole spawn briefing — routing the classified intent to one
// agent, its metier persona, hybrid recall over 10,000 lessons (scars and victories: the
// agent's own first, then global), the tenant's mission brief, the reflex memory and the user
// model's core slice, fitted to the token budget — p50 and p95 (goal p95 < 100 ms), on native
// PostgreSQL with the seeded roster, the lessons embedded by the real vector sync through the
// offline embedder (deterministic, in-process: the database, the recall engine, the routing
// and the tokenizer are measured, not a provider).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clients } from '#db/schema/clients'
import { learnLessons } from '#db/schema/learn'
import { memUserModel } from '#db/schema/mem'
import { createAiFacade } from '#layers/ai/core/facade'
import { ROSTER } from '#layers/agents/core/roster/index'
import { seedAgents } from '#layers/agents/core/seed'
import { assembleSpawnBriefing } from '#layers/spawn/core/spawn-briefing'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { percentile, sample, sized, type BenchFigure } from './lib'
import { nativeBenchDatabase } from './databases'

const OFFLINE = { AI_OFFLINE: '1' }
// BENCH_SIZE=tiny (bench/lib.ts): 200 lessons (the roster's own 2 each, then global ones), 10 briefings.
const LESSONS = sized(10_000, 200)
const OWN_PER_AGENT = sized(20, 2)
const BRIEFINGS = sized(200, 10)
const BUDGET = 2000
const INTENTS = ['chantier', 'question', 'run', 'negociation', 'astrologie']

const log = (line: string) => process.stderr.write(`[bench] loop: ${line}\n`)

const DOMAIN_WORDS = ['deploy', 'webhook', 'migration', 'secret', 'cache', 'timeout', 'retry', 'invoice', 'form', 'image', 'index', 'lock', 'cron', 'mail', 'faq', 'cover', 'podcast', 'contrast', 'focus', 'query', 'log', 'tenant', 'token', 'render', 'mobile', 'seo', 'title', 'payload', 'queue', 'backup', 'contact', 'erreur', 'formulaire', 'devis', 'page']
const SYLLABLES = ['ba', 'co', 'di', 'fu', 'ga', 'le', 'mi', 'no', 'pa', 'ri', 'so', 'tu', 'va', 'ze', 'lor', 'mant', 'dre', 'qui', 'sel', 'ton']

/**
 * Words drawn with a Zipf-like skew from a vocabulary of a few thousand terms (the domain's
 * words the most frequent), as real lessons and e-mails are: a request shares a few words
 * with many lessons and many words with few, never every word with every lesson.
 */
function words(seed: number) {
  const vocabulary = [...DOMAIN_WORDS]
  for (const a of SYLLABLES) for (const b of SYLLABLES) for (const c of SYLLABLES.slice(0, 8)) vocabulary.push(`${a}${b}${c}`)
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  const pick = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** random()) - 1)]!
  return (length: number) => Array.from({ length }, pick).join(' ')
}

export default async function (): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('loop', { max: 3 })
  const reflexDir = mkdtempSync(join(tmpdir(), 'synedre-bench-reflex-'))
  try {
    const { db } = database
    await seedAgents(db)
    const text = words(17)
    const rows = Array.from({ length: LESSONS }, (_, i) => ({
      kind: i % 5 === 0 ? 'success' as const : 'failure' as const,
      title: `Lesson ${i}: ${text(4)}`,
      description: text(30),
      checkAdded: text(8),
      importance: i % 11,
      tags: [text(1)],
      agent: i < ROSTER.length * OWN_PER_AGENT ? ROSTER[i % ROSTER.length]!.codename : null,
      // A few archived ones: never indexed, never served.
      archivedAt: i % 50 === 49 ? new Date() : null,
    }))
    for (let start = 0; start < rows.length; start += 500) await db.insert(learnLessons).values(rows.slice(start, start + 500))
    const ai = createAiFacade({ env: OFFLINE, db, embedThrottleMs: 0, log: () => {} })
    const embedder = facadeEmbedder(ai, { feature: 'loop_bench' })
    const sync = await syncVectors({ db, embedder, reflexDir }, { sources: ['scar', 'victory'] })
    log(`embedded ${sync.embedded} lessons`)
    await ai.flush()
    const tenants = await db.insert(clients).values(Array.from({ length: 10 }, (_, i) => ({
      slug: `bench-tenant-${i}`, name: `Bench tenant ${i}`, config: { missionBrief: `Tenant ${i}: ${text(60)}` },
    }))).returning({ id: clients.id })
    writeFileSync(join(reflexDir, 'MEMORY.md'), `# Reflex memory\n${Array.from({ length: 30 }, () => text(12)).join('\n')}\n`)
    await db.insert(memUserModel).values({ subject: 'founder', communicationStyle: { tone: 'direct, short sentences' }, preferences: { language: 'French for clients' } })

    const requests = Array.from({ length: 50 }, () => `${text(8)}\n${text(60)}`)
    let i = 0
    let lessons = 0
    let tokens = 0
    let fallback = 0
    const durations = await sample(async () => {
      const n = i++
      const assembled = await assembleSpawnBriefing(
        { db, embedder, reflexDir, budget: BUDGET, lessons: 5, log: () => {} },
        { intent: INTENTS[n % INTENTS.length]!, tenantId: tenants[n % tenants.length]!.id, request: requests[n % requests.length]! },
      )
      lessons += assembled.lessons.length
      tokens += assembled.briefing?.tokens ?? 0
      if (assembled.agent?.fallback) fallback++
    }, BRIEFINGS)
    const p50 = percentile(durations, 50) / 1000
    const p95 = percentile(durations, 95) / 1000
    log(`spawn briefing p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms; ${(lessons / i).toFixed(1)} lessons and ${Math.round(tokens / i)} tokens per briefing on average; ${fallback} fallback routings`)
    const context = { side: 'native', agents: ROSTER.length, lessons: LESSONS, ownPerAgent: OWN_PER_AGENT, briefings: BRIEFINGS, budget: BUDGET, lessonsPerBriefing: 5, recall: 'hybrid, scope scar+victory, own then global', embedder: 'offline (in-process)', tokenizer: 'o200k_base', goalP95Ms: 100 }
    return [
      { name: 'loop.spawn_briefing_ms', value: Number(p50.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { ...context, percentile: 50, p95Ms: Number(p95.toFixed(2)) } },
      { name: 'loop.spawn_briefing_p95_ms', value: Number(p95.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { ...context, percentile: 95 } },
    ]
  }
  finally {
    rmSync(reflexDir, { recursive: true, force: true })
    await database.close()
  }
}
