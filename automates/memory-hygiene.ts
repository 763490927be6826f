// memory-hygiene [--dry-run] [--validate-only]
// Current memory hygiene (memory-and-learning §4.6), the 1st of the month: environment
// validation → dead-link report (always) → archiving of decommissioned/obsolete files (out of
// REFLEX_DIR into MEMORY_ARCHIVE_DIR, their index lines removed; the vault's notes so marked
// too, their mem_notes rows removed) → SHA-256 duplicate removal.
// Prints a JSON report and keeps it in MEMORY_HYGIENE_REPORT_DIR. Exit 0 done, 1 validation
// failed, 2 a step failed, 3 dry-run done (informational: the run is recorded ok).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { inArray } from 'drizzle-orm'
import { memNotes } from '#db/schema/mem'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { runHygiene } from '#layers/memory/core/hygiene/pipeline'

export default defineAutomate({
  name: 'memory-hygiene',
  description: 'Monthly hygiene of the current memory: validation, dead links, archiving of decommissioned files, duplicate removal.',
  scope: 'REFLEX_DIR (MEMORY.md and thematic files), VAULT_DIR notes and mem_notes → MEMORY_ARCHIVE_DIR; JSON report in MEMORY_HYGIENE_REPORT_DIR',
  dryRun: true,
  informationalExitCodes: [3],
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'dry-run': { type: 'boolean' }, 'validate-only': { type: 'boolean' } } })
    const { reflexDir, vaultDir } = memoryConfig(process.env)
    const dataDir = resolve(process.env.DATA_DIR?.trim() || '.data')
    const archiveDir = resolve(process.env.MEMORY_ARCHIVE_DIR?.trim() || join(dataDir, 'memory-archive'))
    const reportDir = resolve(process.env.MEMORY_HYGIENE_REPORT_DIR?.trim() || join(dataDir, 'reports', 'memory-hygiene'))
    const now = ctx.now()
    const vault = {
      dir: vaultDir,
      unindexNotes: async (paths: string[]) => void (await ctx.db.delete(memNotes).where(inArray(memNotes.path, paths))),
    }
    const report = await runHygiene({ reflexDir, archiveDir, now, vault, dryRun: values['dry-run'], validateOnly: values['validate-only'] })
    const json = JSON.stringify(report, null, 2)
    ctx.log(json)
    // The report is kept on disk in every mode (the seed: the dead-link report even in dry-run).
    mkdirSync(reportDir, { recursive: true })
    const file = join(reportDir, `${now.toISOString().replace(/[:.]/g, '-')}.json`)
    writeFileSync(file, `${json}\n`)
    ctx.log(`report: ${file}`)
    return report.exitCode
  },
})
