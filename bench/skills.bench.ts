// Skills: routing one request among 1,000 enabled skills (issue 21, goal p95 < 30 ms), as the
// hub routes it: the router port over a migrated database holding 1,000 skills enabled for
// one person, their name + description indexed in the memory (mem_embeddings, source type
// skill, offline embedder); what is measured is one routing decision — the library state
// check, the memory's hybrid recall over that person's enabled skills (RRF k = 60, top 8) and
// the thresholds — offline (no model call). The index is built before the measure (the port
// keeps it across runs, as the hub does). Native PostgreSQL is the figure; the embedded one
// is in its context.
import { skills, skillEnablements } from '#db/schema/skills'
import { createAiFacade } from '#layers/ai/core/facade'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { syncSkillIndex } from '#layers/skills/core/memory-index'
import { skillRouterPort } from '#layers/skills/core/port'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { percentile, sample, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): 50 skills, 10 requests.
const SKILLS = sized(1000, 50)
const REQUESTS = sized(400, 10)
const EMAIL = 'bench-skills@studio.test'

function generator(seed: number) {
  const vocabulary = ['recap', 'meeting', 'invoice', 'client', 'email', 'bug', 'report', 'sprint', 'backlog', 'deploy', 'rollback', 'schema', 'database', 'test', 'review', 'security', 'churn', 'cohort', 'contract', 'clause', 'offer', 'hiring', 'release', 'notes', 'agenda', 'estimate', 'budget', 'compte', 'rendu', 'réunion', 'facture', 'devis', 'planifier', 'traduire', 'résumer', 'document', 'incident', 'panne', 'support', 'ticket', 'vendor', 'okr', 'linkedin', 'thread', 'refactor', 'module', 'error', 'trace', 'onboarding', 'newcomer']
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  return (length: number) => Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(' ')
}

async function measure(
  open: () => Promise<Awaited<ReturnType<typeof nativeBenchDatabase>>>,
): Promise<{ durations: number[], indexMs: number }> {
  const database = await open()
  try {
    const { db } = database
    const text = generator(21)
    const rows = Array.from({ length: SKILLS }, (_, i) => ({
      name: `skill-${i}-${text(2).replace(/[^a-z]+/g, '-')}`.replace(/-+$/, ''),
      description: `${text(12)}.`,
      body: 'Do it.',
      createdBy: EMAIL,
      ownerEmail: EMAIL,
    }))
    const inserted = await db.insert(skills).values(rows).returning({ id: skills.id })
    await db.insert(skillEnablements).values(inserted.map(row => ({ skillId: row.id, email: EMAIL, enabled: true })))
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, embedThrottleMs: 0, log: () => {} })
    const embedder = facadeEmbedder(ai, { feature: 'skills_bench' })
    const started = process.hrtime.bigint()
    await syncSkillIndex(db, embedder)
    const indexMs = Number(process.hrtime.bigint() - started) / 1e6
    const port = skillRouterPort(db, embedder)
    const requests = Array.from({ length: REQUESTS }, () => `Please ${text(6)} for me`)
    let i = 0
    const durations = await sample(() => port.select({ email: EMAIL, request: requests[i++ % REQUESTS]!, forced: [] }), REQUESTS)
    await ai.flush()
    return { durations, indexMs }
  }
  finally {
    await database.close()
  }
}

export default async function (): Promise<BenchFigure[]> {
  const native = await measure(() => nativeBenchDatabase('skills', { max: 4 }))
  const embedded = await measure(() => embeddedBenchDatabase('skills', { max: 4 }))
  const ms = (durations: number[], p: number) => Number((percentile(durations, p) / 1000).toFixed(3))
  return [{
    name: 'skills.route_ms_1k',
    value: ms(native.durations, 95),
    unit: 'ms',
    lowerIsBetter: true,
    context: {
      skills: SKILLS, requests: REQUESTS, percentile: 95, goalMs: 30, database: 'native PostgreSQL',
      candidates: 'memory hybrid recall (mem_embeddings scope skill, the person\'s enabled skills), RRF k = 60, top 8; match score on name + description', model: 'none (offline: deterministic branches)',
      p50Ms: ms(native.durations, 50), indexMs: Number(native.indexMs.toFixed(1)),
      embedded: { p95Ms: ms(embedded.durations, 95), p50Ms: ms(embedded.durations, 50), indexMs: Number(embedded.indexMs.toFixed(1)) },
    },
  }]
}
