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

export async function runMaintenanceLoop(options: LoopOptions): Promise<LoopResult> {
  const { db, dryRun, log } = options
  const night = options.now.toISOString().slice(0, 10)
  const startedAt = new Date()
  const steps: MaintNightStep[] = []
  const step = async (name: string, work: () => Promise<{ code: number, summary: string }>) => {
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

  let chapters = new Map<string, Chapter>()
  let tree: CodeTree = { files: new Map(), mtimes: new Map() }
  let initial: Inspection | undefined
  const proposals = new Map<string, Proposal>()
  const published = new Map<string, string>()
  let reinspected: Inspection | undefined
  let health = 0

  await step('inspection', async () => {
    chapters = await readChapters(options.docsDir)
    tree = await readCodeTree(options.codeDir)
    initial = inspect(chapters, tree)
    if (!dryRun) await saveInspection(db, night, 'initial', initial)
    for (const c of initial.drifted) log(`  drift ${c.chapter} (${c.score}): dead ${c.dead.join(', ') || '-'}; stale ${c.stale.join(', ') || '-'}`)
    return { code: initial.drifted.length > 0 ? 1 : 0, summary: `${initial.drifted.length} of ${initial.chaptersTotal} chapters drift, ${initial.deadReferences} dead references` }
  })

  await step('coverage', async () => {
    const coverage = measureCoverage(chapters, tree)
    if (!dryRun) await saveCoverage(db, night, coverage)
    for (const unit of coverage.uncovered) log(`  uncovered ${unit}`)
    return { code: coverage.uncovered.length > 0 ? 1 : 0, summary: `${coverage.uncovered.length} of ${coverage.unitsTotal} code units referenced by no chapter` }
  })

  await step('repair', async () => {
    let fixed = 0
    let flagged = 0
    for (const drift of initial?.drifted ?? []) {
      if (drift.dead.length === 0) continue
      const repair = repairChapter(chapters.get(drift.chapter)!.text, tree)
      for (const f of repair.fixed) log(`  repair ${drift.chapter}: ${f.from} → ${f.to}`)
      for (const ref of repair.flagged) log(`  flagged ${drift.chapter}: ${ref} (no unique match)`)
      fixed += repair.fixed.length
      flagged += repair.flagged.length
      if (repair.fixed.length > 0) proposals.set(drift.chapter, { text: repair.text, origin: 'repair' })
    }
    return { code: flagged > 0 ? 1 : 0, summary: `${fixed} dead references rewritten, ${flagged} flagged` }
  })

  await step('deep', async () => {
    if (!options.deep) return { code: 0, summary: 'skipped (--no-deep)' }
    const targets: DeepTarget[] = []
    for (const drift of initial?.drifted ?? []) {
      const text = proposals.get(drift.chapter)?.text ?? chapters.get(drift.chapter)!.text
      const after = inspect(new Map([[drift.chapter, { text, mtimeMs: proposals.has(drift.chapter) ? Number.POSITIVE_INFINITY : chapters.get(drift.chapter)!.mtimeMs }]]), tree)
      const left = after.drifted[0]
      if (left) targets.push({ chapter: drift.chapter, text, dead: left.dead, stale: left.stale })
    }
    if (dryRun) {
      // A model call is spent and billed (ai_consumption): the simulation names the chapters only.
      const would = targets.slice(0, options.deepMax).map(t => t.chapter)
      for (const chapter of would) log(`  would regenerate ${chapter}`)
      return { code: 0, summary: `${would.length} of ${targets.length} drifting chapters would be regenerated (max ${options.deepMax}, dry-run: no model call)` }
    }
    if (!options.ai) return { code: 0, summary: 'skipped: no model' }
    const { results, failed, skipped } = await regenerate(targets, tree, { ai: options.ai, max: options.deepMax, budgetMs: options.deepBudgetMs, log, signal: options.signal })
    for (const r of results) proposals.set(r.chapter, { text: r.text, origin: 'deep' })
    return { code: failed > 0 ? 1 : 0, summary: `${results.length} of ${targets.length} drifting chapters regenerated (max ${options.deepMax}), ${failed} failed, ${skipped} not started` }
  })

  const staged = (chapter: string) => join(options.stagingDir, night, chapter)

  await step('proposal', async () => {
    if (!dryRun) {
      for (const [chapter, proposal] of proposals) {
        await mkdir(dirname(staged(chapter)), { recursive: true })
        await writeFile(staged(chapter), proposal.text)
      }
    }
    return { code: 0, summary: `${proposals.size} proposals ${dryRun ? 'prepared (dry-run, not staged)' : `staged in ${join(options.stagingDir, night)}`}` }
  })

  await step('publishing', async () => {
    let refused = 0
    for (const [chapter, proposal] of proposals) {
      const verdict = checkProposal(chapter, proposal.text, tree)
      if (verdict.passed) {
        published.set(chapter, proposal.text)
        log(`  published ${chapter} (${proposal.origin})`)
        if (!dryRun) {
          await writeFile(join(options.docsDir, chapter), proposal.text)
          await rm(staged(chapter))
        }
        continue
      }
      refused++
      log(`  refused ${chapter} (${proposal.origin}): ${verdict.reasons.join('; ')}`)
      if (!dryRun) await writeFile(`${staged(chapter)}.refused.txt`, `${verdict.reasons.join('\n')}\n`)
    }
    return { code: refused > 0 ? 1 : 0, summary: `${published.size} published, ${refused} refused by the gates (left in staging)` }
  })

  await step('reinspection', async () => {
    const now = dryRun ? chapters : await readChapters(options.docsDir)
    if (dryRun) for (const [chapter, text] of published) now.set(chapter, { text, mtimeMs: Number.POSITIVE_INFINITY })
    reinspected = inspect(now, dryRun ? tree : await readCodeTree(options.codeDir))
    if (!dryRun) await saveInspection(db, night, 'reinspection', reinspected)
    return { code: reinspected.drifted.length > 0 ? 1 : 0, summary: `${reinspected.drifted.length} of ${reinspected.chaptersTotal} chapters still drift, ${reinspected.deadReferences} dead references` }
  })

  const flags = dryRun ? ['--dry-run'] : []
  await step('health-report', async () => {
    // In dry-run the care note is not written either: its model call would be billed.
    health = await options.runAutomate('health-report', dryRun ? [...flags, '--no-voice'] : flags)
    return { code: health, summary: ['nominal', 'warning', 'critical'][health] ?? `exit ${health}` }
  })
  await step('snapshot', async () => {
    const code = await options.runAutomate('health-snapshot', flags)
    return { code, summary: ['pushed', 'read error (best effort, the night goes on)', 'push error (best effort, the night goes on)'][code] ?? `exit ${code}` }
  })

  const crashed = steps.some(s => s.exitCode === CRASHED)
  const exitCode = crashed ? CRASHED : health === 2 ? 2 : (reinspected?.drifted.length ?? 1) > 0 ? 1 : 0
  if (!dryRun) await saveNight(db, night, exitCode, steps, startedAt)
  else log('[dry-run] nothing written: no table, no staging, no chapter')
  return { night, exitCode, steps }
}
