// The nightly maintenance loop (seed "Nightly Maintenance Loop"): inspection → coverage →
// repair → deep regeneration → proposals in staging → publishing gates → re-inspection →
// health report → snapshot. Each step's code goes to the morning report; a step that throws
// is recorded as crashed (code 3) and the night goes on. In dry-run nothing is written: not
// the tables, not the staging folder, not the docs (proposals and gates run in memory).
// Loop exit: 3 when a step crashed, else 2 when health is critical, else 1 when drift remains.
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Db } from '#db/client'
import type { MaintNightStep } from '#db/schema/health'
import type { AiFacade } from '#layers/ai/core/facade'
import { inspect, measureCoverage, type Chapter, type Inspection } from './drift'
import { regenerate, type DeepTarget } from './deep'
import { checkProposal } from './gates'
import { readChapters, readCodeTree, type CodeTree } from './references'
import { repairChapter } from './repair'
import { saveCoverage, saveInspection, saveNight } from './store'

export const CRASHED = 3

export interface LoopOptions {
  db: Db
  docsDir: string
  codeDir: string
  stagingDir: string
  dryRun: boolean
  deep: boolean
  deepMax: number
  deepBudgetMs: number
  now: Date
  /** Absent: deep regeneration has no model and is skipped. */
  ai?: AiFacade
  log: (line: string) => void
  signal?: AbortSignal
  /** Runs steps 8 and 9 (the health-report and health-snapshot automates) with these flags. */
  runAutomate: (name: 'health-report' | 'health-snapshot', args: string[]) => Promise<number>
}

export interface LoopResult { night: string, exitCode: number, steps: MaintNightStep[] }

interface Proposal { text: string, origin: string }

interface StepOutcome { code: number, summary: string }

/** What the night's steps hand each other, in the order they run. */
interface Night {
  options: LoopOptions
  /** The night's date (YYYY-MM-DD): the key of its rows and of its staging folder. */
  night: string
  chapters: Map<string, Chapter>
  tree: CodeTree
  initial?: Inspection
  proposals: Map<string, Proposal>
  published: Map<string, string>
  reinspected?: Inspection
  health: number
}

/** Runs one step, recording its code, duration and summary; a step that throws is recorded as crashed. */
async function runStep(steps: MaintNightStep[], log: LoopOptions['log'], name: string, work: () => Promise<StepOutcome>): Promise<void> {
  const t0 = Date.now()
  try {
    const { code, summary } = await work()
    steps.push({ step: name, exitCode: code, durationMs: Date.now() - t0, summary })
    log(`[${steps.length}] ${name}: ${code} — ${summary}`)
  }
  catch (error) {
    const summary = `crashed: ${error instanceof Error ? error.message : String(error)}`
    steps.push({ step: name, exitCode: CRASHED, durationMs: Date.now() - t0, summary })
    log(`[${steps.length}] ${name}: ${CRASHED} — ${summary}`)
  }
}

async function inspection(n: Night): Promise<StepOutcome> {
  const { db, dryRun, log } = n.options
  n.chapters = await readChapters(n.options.docsDir)
  n.tree = await readCodeTree(n.options.codeDir)
  const initial = inspect(n.chapters, n.tree)
  n.initial = initial
  if (!dryRun) await saveInspection(db, n.night, 'initial', initial)
  for (const c of initial.drifted) log(`  drift ${c.chapter} (${c.score}): dead ${c.dead.join(', ') || '-'}; stale ${c.stale.join(', ') || '-'}`)
  return { code: initial.drifted.length > 0 ? 1 : 0, summary: `${initial.drifted.length} of ${initial.chaptersTotal} chapters drift, ${initial.deadReferences} dead references` }
}

async function coverage(n: Night): Promise<StepOutcome> {
  const { db, dryRun, log } = n.options
  const measured = measureCoverage(n.chapters, n.tree)
  if (!dryRun) await saveCoverage(db, n.night, measured)
  for (const unit of measured.uncovered) log(`  uncovered ${unit}`)
  return { code: measured.uncovered.length > 0 ? 1 : 0, summary: `${measured.uncovered.length} of ${measured.unitsTotal} code units referenced by no chapter` }
}

async function repair(n: Night): Promise<StepOutcome> {
  const { log } = n.options
  let fixed = 0
  let flagged = 0
  for (const drift of n.initial?.drifted ?? []) {
    if (drift.dead.length === 0) continue
    const repaired = repairChapter(n.chapters.get(drift.chapter)!.text, n.tree)
    for (const f of repaired.fixed) log(`  repair ${drift.chapter}: ${f.from} → ${f.to}`)
    for (const ref of repaired.flagged) log(`  flagged ${drift.chapter}: ${ref} (no unique match)`)
    fixed += repaired.fixed.length
    flagged += repaired.flagged.length
    if (repaired.fixed.length > 0) n.proposals.set(drift.chapter, { text: repaired.text, origin: 'repair' })
  }
  return { code: flagged > 0 ? 1 : 0, summary: `${fixed} dead references rewritten, ${flagged} flagged` }
}

/** The chapters still drifting once the repairs are applied: what deep regeneration rewrites. */
function deepTargets(n: Night): DeepTarget[] {
  const targets: DeepTarget[] = []
  for (const drift of n.initial?.drifted ?? []) {
    const text = n.proposals.get(drift.chapter)?.text ?? n.chapters.get(drift.chapter)!.text
    const after = inspect(
      new Map([
        [
          drift.chapter,
          { text, mtimeMs: n.proposals.has(drift.chapter) ? Number.POSITIVE_INFINITY : n.chapters.get(drift.chapter)!.mtimeMs },
        ],
      ]),
      n.tree,
    )
    const left = after.drifted[0]
    if (left) targets.push({ chapter: drift.chapter, text, dead: left.dead, stale: left.stale })
  }
  return targets
}

async function deep(n: Night): Promise<StepOutcome> {
  const { options } = n
  if (!options.deep) return { code: 0, summary: 'skipped (--no-deep)' }
  const targets = deepTargets(n)
  if (options.dryRun) {
    // A model call is spent and billed (ai_consumption): the simulation names the chapters only.
    const would = targets.slice(0, options.deepMax).map(t => t.chapter)
    for (const chapter of would) options.log(`  would regenerate ${chapter}`)
    return { code: 0, summary: `${would.length} of ${targets.length} drifting chapters would be regenerated (max ${options.deepMax}, dry-run: no model call)` }
  }
  if (!options.ai) return { code: 0, summary: 'skipped: no model' }
  const { results, failed, skipped } = await regenerate(targets, n.tree, {
    ai: options.ai,
    max: options.deepMax,
    budgetMs: options.deepBudgetMs,
    log: options.log,
    signal: options.signal,
  })
  for (const r of results) n.proposals.set(r.chapter, { text: r.text, origin: 'deep' })
  return { code: failed > 0 ? 1 : 0, summary: `${results.length} of ${targets.length} drifting chapters regenerated (max ${options.deepMax}), ${failed} failed, ${skipped} not started` }
}

const staged = (n: Night, chapter: string) => join(n.options.stagingDir, n.night, chapter)

async function proposal(n: Night): Promise<StepOutcome> {
  const { dryRun } = n.options
  if (!dryRun) {
    for (const [chapter, proposed] of n.proposals) {
      await mkdir(dirname(staged(n, chapter)), { recursive: true })
      await writeFile(staged(n, chapter), proposed.text)
    }
  }
  return { code: 0, summary: `${n.proposals.size} proposals ${dryRun ? 'prepared (dry-run, not staged)' : `staged in ${join(n.options.stagingDir, n.night)}`}` }
}

async function publishing(n: Night): Promise<StepOutcome> {
  const { dryRun, log } = n.options
  let refused = 0
  for (const [chapter, proposed] of n.proposals) {
    const verdict = checkProposal(chapter, proposed.text, n.tree)
    if (verdict.passed) {
      n.published.set(chapter, proposed.text)
      log(`  published ${chapter} (${proposed.origin})`)
      if (!dryRun) {
        await writeFile(join(n.options.docsDir, chapter), proposed.text)
        await rm(staged(n, chapter))
      }
      continue
    }
    refused++
    log(`  refused ${chapter} (${proposed.origin}): ${verdict.reasons.join('; ')}`)
    if (!dryRun) await writeFile(`${staged(n, chapter)}.refused.txt`, `${verdict.reasons.join('\n')}\n`)
  }
  return { code: refused > 0 ? 1 : 0, summary: `${n.published.size} published, ${refused} refused by the gates (left in staging)` }
}

async function reinspection(n: Night): Promise<StepOutcome> {
  const { db, dryRun } = n.options
  const now = dryRun ? n.chapters : await readChapters(n.options.docsDir)
  if (dryRun) for (const [chapter, text] of n.published) now.set(chapter, { text, mtimeMs: Number.POSITIVE_INFINITY })
  const reinspected = inspect(now, dryRun ? n.tree : await readCodeTree(n.options.codeDir))
  n.reinspected = reinspected
  if (!dryRun) await saveInspection(db, n.night, 'reinspection', reinspected)
  return { code: reinspected.drifted.length > 0 ? 1 : 0, summary: `${reinspected.drifted.length} of ${reinspected.chaptersTotal} chapters still drift, ${reinspected.deadReferences} dead references` }
}

const automateFlags = (n: Night) => n.options.dryRun ? ['--dry-run'] : []

async function healthReport(n: Night): Promise<StepOutcome> {
  const flags = automateFlags(n)
  // In dry-run the care note is not written either: its model call would be billed.
  n.health = await n.options.runAutomate('health-report', n.options.dryRun ? [...flags, '--no-voice'] : flags)
  return { code: n.health, summary: ['nominal', 'warning', 'critical'][n.health] ?? `exit ${n.health}` }
}

async function snapshot(n: Night): Promise<StepOutcome> {
  const code = await n.options.runAutomate('health-snapshot', automateFlags(n))
  return { code, summary: ['pushed', 'read error (best effort, the night goes on)', 'push error (best effort, the night goes on)'][code] ?? `exit ${code}` }
}

const STEPS: ReadonlyArray<[string, (n: Night) => Promise<StepOutcome>]> = [
  ['inspection', inspection],
  ['coverage', coverage],
  ['repair', repair],
  ['deep', deep],
  ['proposal', proposal],
  ['publishing', publishing],
  ['reinspection', reinspection],
  ['health-report', healthReport],
  ['snapshot', snapshot],
]

export async function runMaintenanceLoop(options: LoopOptions): Promise<LoopResult> {
  const { db, dryRun, log } = options
  const startedAt = new Date()
  const steps: MaintNightStep[] = []
  const n: Night = {
    options,
    night: options.now.toISOString().slice(0, 10),
    chapters: new Map(),
    tree: { files: new Map(), mtimes: new Map() },
    proposals: new Map(),
    published: new Map(),
    health: 0,
  }
  for (const [name, work] of STEPS) await runStep(steps, log, name, () => work(n))

  const crashed = steps.some(s => s.exitCode === CRASHED)
  const exitCode = crashed ? CRASHED : n.health === 2 ? 2 : (n.reinspected?.drifted.length ?? 1) > 0 ? 1 : 0
  if (!dryRun) await saveNight(db, n.night, exitCode, steps, startedAt)
  else log('[dry-run] nothing written: no table, no staging, no chapter')
  return { night: n.night, exitCode, steps }
}
