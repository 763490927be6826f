// maintenance-loop [--dry-run] [--no-deep] [--deep-max N] [--deep-budget-sec N]
// The nightly maintenance loop (05:00; seed "Nightly Maintenance Loop"): drift inspection of
// DOCS_DIR against DOCS_CODE_DIR, coverage, mechanical repair, deep regeneration (AI facade:
// docs_regeneration), proposals in DOCS_STAGING_DIR, publishing gates, re-inspection, then the
// health-report and health-snapshot automates as steps 8 and 9. --dry-run writes nothing and
// bypasses the circuit breaker. Exit 0 clean, 1 drift present, 2 critical health (both
// informational), 3 a step crashed, 64 a bad flag (both fail the run); one maint_nights row per night.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { runMaintenanceLoop } from '#layers/health/core/maintenance/loop'

/** Bad flags (sysexits' EX_USAGE): the run fails before anything is read. */
export const USAGE_EXIT = 64

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new TypeError(`${flag} takes a whole number ≥ 0, not "${value}"`)
  return n
}

function parseFlags(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      'dry-run': { type: 'boolean' },
      'no-deep': { type: 'boolean' },
      'deep-max': { type: 'string' },
      'deep-budget-sec': { type: 'string' },
    },
  })
  return {
    dryRun: Boolean(values['dry-run']),
    noDeep: Boolean(values['no-deep']),
    deepMax: wholeNumber(values['deep-max'], '--deep-max', 4),
    deepBudgetSec: wholeNumber(values['deep-budget-sec'], '--deep-budget-sec', 4500),
  }
}

export default defineAutomate({
  name: 'maintenance-loop',
  description: 'The nightly maintenance loop: documentation drift, coverage, repair, deep regeneration, gated publishing, re-inspection, health report, snapshot.',
  scope: 'DOCS_DIR (published chapters), DOCS_STAGING_DIR, maint_inspections, maint_drift_chapters, maint_coverage, maint_nights; then health-report and health-snapshot',
  dryRun: true,
  // Deep regeneration may run 75 minutes: the lease is heartbeated, a long TTL only bounds a dead holder.
  leaseTtlMs: 600_000,
  informationalExitCodes: [1, 2],
  bypassCircuitBreaker: args => args.includes('--dry-run'),
  async run(ctx) {
    let flags: ReturnType<typeof parseFlags>
    try {
      flags = parseFlags(ctx.args)
    }
    catch (error) {
      ctx.log(`usage: maintenance-loop [--dry-run] [--no-deep] [--deep-max N] [--deep-budget-sec N] — ${error instanceof Error ? error.message : String(error)}`)
      return USAGE_EXIT
    }
    const { dryRun, deepMax, deepBudgetSec } = flags
    const docsDir = process.env.DOCS_DIR?.trim()
    const codeDir = process.env.DOCS_CODE_DIR?.trim()
    if (!docsDir || !codeDir || !existsSync(docsDir) || !existsSync(codeDir)) {
      if (!docsDir || !existsSync(docsDir)) ctx.notConfigured('DOCS_DIR', 'the folder of Markdown chapters the loop inspects and repairs')
      if (!codeDir || !existsSync(codeDir)) ctx.notConfigured('DOCS_CODE_DIR', 'the code tree the chapters document')
      ctx.log('maintenance loop: DOCS_DIR and DOCS_CODE_DIR must name existing folders; nothing inspected')
      return 0
    }
    const stagingDir = resolve(process.env.DOCS_STAGING_DIR?.trim() || join(process.env.DATA_DIR?.trim() || '.data', 'docs-staging'))
    const deep = !flags.noDeep && deepMax > 0
    const ai = deep && !dryRun ? createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) }) : undefined
    const { automates } = await import('./registry')
    try {
      const result = await runMaintenanceLoop({
        db: ctx.db,
        docsDir: resolve(docsDir),
        codeDir: resolve(codeDir),
        stagingDir,
        dryRun,
        deep,
        deepMax,
        deepBudgetMs: deepBudgetSec * 1000,
        now: ctx.now(),
        ai,
        log: ctx.log,
        signal: ctx.signal,
        runAutomate: async (name, args) => (await automates[name]!()).run({ ...ctx, args }),
      })
      ctx.log(`maintenance loop ${result.night}: exit ${result.exitCode}`)
      return result.exitCode
    }
    finally {
      await ai?.flush()
    }
  },
})
