// The briefing in a spawn: the classified message's prompt domain → one agent of the
// registry (agents/core/routing.ts: tie-break and fallback there) → formatBriefing with the
// spawn's collaborators: the agent's metier tier, its lessons (scars and victories by hybrid
// recall on the request, its own first, then global, archived never), the tenant's mission
// brief, the reflex memory (MEMORY.md) and the user model's core slice, fitted to the token
// budget (the lowest-ranked lessons dropped first, never the persona). Then, per spawn: the
// agent, the domain, the token count and budget on the row, the injected lessons in
// atlas_spawn_lessons, and those lessons' recall counters moved.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasSpawnLessons, atlasSpawns } from '#db/schema/atlas-spawn'
import { formatBriefing, type Briefing } from '#layers/agents/core/briefing'
import { lessonRecallFrom, tenantMissionBriefFrom, userCoreFrom } from '#layers/agents/core/memory-adapters'
import { routeAgent, type RoutedAgent } from '#layers/agents/core/routing'
import { countRecalls } from '#layers/memory/core/recall/counters'
import { readReflexIndex } from '#layers/memory/core/reflex'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { taskMissionBrief } from '#layers/worksites/core/projects'

/**
 * The classifier's intents are the registry's prompt domains for the work they lead to
 * (chantier, question, run, negociation are listed in the roster's CSVs); an intent the
 * registry does not serve falls to the fallback agent.
 */
export function promptDomainOf(intent: string | null | undefined): string {
  return (intent ?? 'run').trim().toLowerCase()
}

export interface SpawnBriefingDeps {
  db: Db
  embedder: Embedder
  reflexDir: string
  budget: number
  lessons: number
  log: (line: string) => void
}

export interface SpawnBriefingInput {
  intent: string | null
  tenantId: string | null
  /** The worksites task the spawn works on: its project's mission brief is quoted before the tenant's. */
  taskId?: string | null
  /** What the recall searches with: the request's subject and body (never shown in the briefing). */
  request: string
}

export interface InjectedLesson {
  id: number
  rank: number
  origin: 'own' | 'global'
  kind: 'scar' | 'victory'
  title: string
}

export interface SpawnBriefing {
  domain: string
  agent: RoutedAgent | null
  briefing: Briefing | null
  lessons: InjectedLesson[]
}

/** Reads the reflex memory's entries; refused lines (over 200 characters) are logged, not served. */
function reflexEntries(reflexDir: string, log: (line: string) => void): string[] {
  const index = readReflexIndex(reflexDir)
  for (const refusal of index.refused) log(`[atlas-spawn-worker] reflex memory: ${refusal.problem}`)
  return index.entries.map(entry => entry.text)
}

export async function assembleSpawnBriefing(deps: SpawnBriefingDeps, input: SpawnBriefingInput): Promise<SpawnBriefing> {
  const domain = promptDomainOf(input.intent)
  const agent = await routeAgent(deps.db, domain)
  if (!agent) {
    deps.log(`[atlas-spawn-worker] no agent serves the domain "${domain}" and the fallback agent is missing (the roster is not seeded: run \`npm run db:migrate\`); the spawn goes unbriefed`)
    return { domain, agent: null, briefing: null, lessons: [] }
  }
  const tenantBrief = tenantMissionBriefFrom(deps.db)
  const briefing = await formatBriefing({
    db: deps.db,
    recallScars: lessonRecallFrom({ db: deps.db, embedder: deps.embedder, log: deps.log }),
    missionBrief: async tenantId => (input.taskId ? await taskMissionBrief(deps.db, input.taskId) : null) ?? await tenantBrief(tenantId),
    userCore: userCoreFrom(deps.db),
  }, {
    codename: agent.codename,
    lang: 'en',
    recallQuery: input.request.slice(0, 2000),
    // Any reference makes the briefing look the brief up: the lookup above reads the task's project first.
    project: input.tenantId ?? (input.taskId ? 'task' : null),
    scars: deps.lessons,
    reflex: reflexEntries(deps.reflexDir, deps.log),
    budget: deps.budget,
  })
  const lessons = briefing.scars.map((scar, index) => ({ id: Number(scar.id), rank: index + 1, origin: scar.origin, kind: scar.kind ?? 'scar', title: scar.title }))
  return { domain, agent, briefing, lessons }
}

/** Stores the briefing's trail on the spawn (still running) and moves the injected lessons' recall counters. */
export async function recordSpawnBriefing(db: Db, spawnId: string, assembled: SpawnBriefing, log: (line: string) => void): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(atlasSpawns).set({
      agentCodename: assembled.agent?.codename ?? null,
      promptDomain: assembled.domain,
      briefingTokens: assembled.briefing?.tokens ?? null,
      briefingBudget: assembled.briefing?.budget ?? null,
      briefing: assembled.briefing?.text ?? null,
    }).where(sql`${atlasSpawns.id} = ${spawnId}::uuid`)
    if (assembled.lessons.length) {
      await tx
        .insert(atlasSpawnLessons)
        .values(assembled.lessons.map(lesson => ({ spawnId, lessonId: lesson.id, rank: lesson.rank, origin: lesson.origin })))
        .onConflictDoNothing()
    }
  })
  await countRecalls(db, assembled.lessons.map(lesson => lesson.id), log)
}
