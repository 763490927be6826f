// The weekly pattern detector (seed §4.5): the recent successful spawns (with their task
// iteration and their events, excerpted) go to a model that names the patterns worth a
// skill; code then keeps only the patterns seen in at least 3 of those spawns, drops the
// ones an existing skill or a pending proposal already covers, and inserts the rest as
// `pending` proposals with their evidence. Nothing here touches the skills registry.
import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/client'
import type { AiFacade } from '#layers/ai/core/facade'
import type { SkillProposalEvidence } from '#db/schema/learn-skills'
import { clip, eventText } from '../debrief/bundle'
import { fillPrompt, promptFile } from '#layers/ai/core/prompts/file'

export const DETECTOR_FEATURE = 'learning_skill_detector'
export const MIN_SPAWNS_PER_PATTERN = 3
export const DETECTOR_WINDOW_DAYS = 30
export const DETECTOR_DEFAULT_LIMIT = 40
const EVENTS_PER_SPAWN = 12
const EXCERPT_CHARS = 600

export interface SpawnDigest { id: string, agent: string | null, task: string | null, excerpt: string }

export const DetectorAnswer = z.object({
  patterns: z.array(z.object({
    pattern: z.string().trim().min(5).max(500),
    name: z.string().trim().min(2).max(64),
    description: z.string().trim().min(5).max(1_000),
    body: z.string().trim().min(10).max(8_000),
    tags: z.array(z.string().trim().min(1).max(40)).max(10).default([]),
    spawnIds: z.array(z.string()).max(100),
  })).max(20),
})

export const DETECTOR_SYSTEM = fillPrompt(promptFile(new URL('./detector.system.md', import.meta.url)), { minRuns: String(MIN_SPAWNS_PER_PATTERN) })

/** The fingerprint two proposals of the same skill share: its name, normalised. */
export function fingerprintOf(name: string): string {
  return name.normalize('NFD').replace(/[\u0300-\u036F]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64)
}

export async function recentSuccessfulSpawns(db: Db, options: { now: Date, windowDays?: number, limit?: number }): Promise<SpawnDigest[]> {
  const since = new Date(options.now.getTime() - (options.windowDays ?? DETECTOR_WINDOW_DAYS) * 86_400_000)
  const spawns = await db.execute<Record<string, unknown>>(sql`
    select s.id, s.agent_codename, t.title as task, i.action, i.observation from atlas_spawns s
    left join work_tasks t on t.id = s.task_id
    left join work_iterations i on i.spawn_id = s.id
    where s.status = 'succeeded' and (i.outcome is null or i.outcome in ('done', 'pass'))
      and coalesce(s.ended_at, s.queued_at) >= ${since.toISOString()}::timestamptz
    order by coalesce(s.ended_at, s.queued_at) desc limit ${options.limit ?? DETECTOR_DEFAULT_LIMIT}`)
  if (spawns.length === 0) return []
  const ids = spawns.map(s => String(s.id))
  const events = await db.execute<Record<string, unknown>>(sql`
    select spawn_id, event_type, tool_name, payload from (
      select e.*, row_number() over (partition by e.spawn_id order by e.seq) as n from atlas_spawn_events e
      where e.spawn_id in (${sql.join(ids.map(id => sql`${id}::uuid`), sql`, `)}) and e.event_type in ('assistant', 'tool_result', 'result')
    ) x where n <= ${EVENTS_PER_SPAWN} order by spawn_id, seq`)
  return spawns.map((s) => {
    const own = events
      .filter(e => String(e.spawn_id) === String(s.id))
      .map(e => eventText(String(e.event_type), e.tool_name ? String(e.tool_name) : null, e.payload))
    const iteration = [s.action, s.observation].filter(Boolean).map(String).join(' → ')
    return { id: String(s.id), agent: s.agent_codename ? String(s.agent_codename) : null, task: s.task ? String(s.task) : null, excerpt: clip([iteration, ...own].filter(Boolean).join(' | '), EXCERPT_CHARS) }
  })
}

export interface DetectorReport {
  spawns: number
  found: number
  /** Patterns dropped and why: fewer than 3 known spawns, an existing skill, a pending proposal, a bad name. */
  dropped: Array<{ name: string, why: string }>
  inserted: Array<{ id: number | null, name: string, spawns: number }>
  dryRun: boolean
}

export async function detectSkillPatterns(
  deps: { db: Db, ai: AiFacade, now: () => Date, log?: (line: string) => void, signal?: AbortSignal },
  options: { dryRun?: boolean, limit?: number, windowDays?: number } = {},
): Promise<DetectorReport> {
  const digests = await recentSuccessfulSpawns(deps.db, { now: deps.now(), windowDays: options.windowDays, limit: options.limit })
  const report: DetectorReport = { spawns: digests.length, found: 0, dropped: [], inserted: [], dryRun: options.dryRun ?? false }
  if (digests.length < MIN_SPAWNS_PER_PATTERN) return report
  const prompt = `The runs (${digests.length}):\n\n${digests.map(d => `<run id="${d.id}" agent="${d.agent ?? ''}" task="${clip(d.task, 120)}">\n${d.excerpt}\n</run>`).join('\n')}`
  const result = await deps.ai.complete({
    feature: DETECTOR_FEATURE,
    system: DETECTOR_SYSTEM,
    prompt,
    json: true,
    timeoutMs: 180_000,
    signal: deps.signal,
  })
  const parsed = DetectorAnswer.safeParse(result.data)
  if (!parsed.success) throw new Error(`the model's answer is outside the schema: ${z.prettifyError(parsed.error).slice(0, 300)}`)
  report.found = parsed.data.patterns.length
  const known = new Map(digests.map(d => [d.id, d]))
  const skills = new Set((await deps.db.execute<{ name: string }>(sql`select name from skills`)).map(r => fingerprintOf(r.name)))
  const pending = new Set(
    (await deps.db.execute<{ fingerprint: string }>(sql`select fingerprint from learn_skill_proposals where status = 'pending'`)).map(
      r => r.fingerprint,
    ),
  )
  for (const candidate of parsed.data.patterns) {
    const fingerprint = fingerprintOf(candidate.name)
    // Evidence is the spawns' own excerpts, never the model's words about them.
    const evidence: SkillProposalEvidence[] = [...new Set(candidate.spawnIds)]
      .filter(id => known.has(id))
      .map(id => ({ spawnId: id, excerpt: known.get(id)!.excerpt }))
    const why
      = fingerprint.length < 2
        ? 'no usable name'
        : evidence.length < MIN_SPAWNS_PER_PATTERN
          ? `seen in ${evidence.length} of the runs given (at least ${MIN_SPAWNS_PER_PATTERN} needed)`
          : skills.has(fingerprint)
            ? 'an existing skill has this name'
            : pending.has(fingerprint)
              ? 'a pending proposal has this name'
              : null
    if (why) {
      report.dropped.push({ name: candidate.name, why })
      continue
    }
    pending.add(fingerprint)
    if (report.dryRun) {
      report.inserted.push({ id: null, name: fingerprint, spawns: evidence.length })
      continue
    }
    const [row] = await deps.db.execute<{ id: number }>(sql`
      insert into learn_skill_proposals (pattern, name, description, body, tags, evidence, fingerprint, proposed_by)
      values (${candidate.pattern}, ${fingerprint}, ${candidate.description}, ${candidate.body}, ${sql`${`{${candidate.tags.map(t => `"${t.replace(/["\\]/g, '')}"`).join(',')}}`}::text[]`}, ${JSON.stringify(evidence)}::jsonb, ${fingerprint}, 'learning-skill-detector')
      on conflict (fingerprint) where status = 'pending' do nothing returning id`)
    if (row) report.inserted.push({ id: Number(row.id), name: fingerprint, spawns: evidence.length })
    else report.dropped.push({ name: candidate.name, why: 'a pending proposal has this name' })
  }
  return report
}
