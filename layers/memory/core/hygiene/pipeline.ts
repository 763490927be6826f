// Current memory hygiene (memory-and-learning §4.6), four steps in order, each timed and
// reported: 1. environment validation (a failure stops everything, exit 1); 2. dead-link
// report (always, even in dry-run); 3. archiving of the files marked decommissioned or
// obsolete (`status:` in their front matter) to the archive folder, their index lines
// removed (and the vault's notes so marked, their mem_notes rows removed); 4. SHA-256 duplicate removal (the copies go to the archive too,
// the index's
// references to them rewritten to the file kept). Exit 0 done (or validation only), 1
// validation failed, 2 a step failed (the pipeline stops), 3 dry-run done, nothing changed.
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { REFLEX_INDEX_FILE } from '../reflex'
import { scanVault } from '../vault/scan'
import { frontmatterStatus, referencesOf, resolveReference, scanCurrentMemory, type IndexReference } from './scan'

export const DECOMMISSIONED_STATUSES = ['decommissioned', 'obsolete'] as const
export type StepName = 'validate' | 'dead_links' | 'archive' | 'dedupe'
export interface StepReport {
  step: StepName
  status: 'ok' | 'failed' | 'skipped' | 'simulated'
  durationMs: number
  errors: string[]
  details: Record<string, unknown>
}
export interface HygieneReport {
  startedAt: string
  dryRun: boolean
  validateOnly: boolean
  reflexDir: string
  archiveDir: string
  steps: StepReport[]
  exitCode: 0 | 1 | 2 | 3
}

export interface HygieneOptions {
  reflexDir: string
  /** Off the memory: where archived files and removed duplicates go (one folder per run's date). */
  archiveDir: string
  now: Date
  dryRun?: boolean
  validateOnly?: boolean
  /**
   * The vault (level 2): its notes marked decommissioned or obsolete are archived too (to
   * `<archive>/<date>/vault/`) and their rows removed from the vault's index (mem_notes) by
   * `unindexNotes`. Absent, or a vault folder that does not exist: only the current memory.
   */
  vault?: { dir: string, unindexNotes: (paths: string[]) => Promise<void> }
}

/** The vault's notes whose front matter says decommissioned or obsolete (unreadable ones reported). */
function decommissionedVaultNotes(vaultDir: string, problems: string[]): string[] {
  const marked: string[] = []
  for (const note of scanVault(vaultDir).notes) {
    try {
      const status = frontmatterStatus(readFileSync(note.absolute, 'utf8'))
      if (status && (DECOMMISSIONED_STATUSES as readonly string[]).includes(status)) marked.push(note.path)
    }
    catch (error) {
      problems.push(`${note.path}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return marked.sort()
}

function inside(parent: string, child: string): boolean {
  const path = relative(resolve(parent), resolve(child))
  return path === '' || (!path.startsWith('..') && !path.startsWith(sep) && !/^[A-Za-z]:/.test(path))
}

export function validateEnvironment(options: HygieneOptions): string[] {
  const problems: string[] = []
  if (!existsSync(options.reflexDir) || !statSync(options.reflexDir).isDirectory()) problems.push(`REFLEX_DIR ${options.reflexDir} is not a folder`)
  else {
    try {
      accessSync(options.reflexDir, constants.R_OK | constants.W_OK)
    }
    catch {
      problems.push(`REFLEX_DIR ${options.reflexDir} is not readable and writable`)
    }
    if (!existsSync(join(options.reflexDir, REFLEX_INDEX_FILE))) problems.push(`the index ${REFLEX_INDEX_FILE} is missing from REFLEX_DIR`)
  }
  if (inside(options.reflexDir, options.archiveDir)) problems.push('MEMORY_ARCHIVE_DIR must be outside REFLEX_DIR (the archive leaves the memory)')
  if (options.vault && inside(options.vault.dir, options.archiveDir)) problems.push('MEMORY_ARCHIVE_DIR must be outside VAULT_DIR (the archive leaves the vault)')
  let parent = resolve(options.archiveDir)
  while (!existsSync(parent)) parent = dirname(parent)
  try {
    accessSync(parent, constants.W_OK)
  }
  catch {
    problems.push(`MEMORY_ARCHIVE_DIR ${options.archiveDir} cannot be created (${parent} is not writable)`)
  }
  return problems
}

/** Removes the index lines that reference a file of `drop`; rewrites the references of `renames`. */
function rewriteIndex(
  reflexDir: string,
  drop: Set<string>,
  renames: Map<string, string>,
  gone: string[],
): { removed: number, rewritten: number } {
  if (drop.size === 0 && renames.size === 0) return { removed: 0, rewritten: 0 }
  const path = join(reflexDir, REFLEX_INDEX_FILE)
  // References resolve against the files before the moves (`gone` are the ones being moved).
  const files = [...new Set([...scanCurrentMemory(reflexDir).files.map(f => f.path), ...gone])].sort()
  const lines = readFileSync(path, 'utf8').split(/\r?\n/)
  let removed = 0
  let rewritten = 0
  const kept: string[] = []
  for (const line of lines) {
    const targets = referencesOf(line).map(target => ({ target, file: resolveReference(target, files) }))
    if (targets.some(t => t.file && drop.has(t.file))) {
      removed++
      continue
    }
    let next = line
    for (const { target, file } of targets) {
      const to = file ? renames.get(file) : undefined
      // Only inside the link's own syntax, so the same word elsewhere in the line stays.
      if (to)
        next = next
          .split(`](${target}`)
          .join(`](${to}`)
          .split(`[[${target}`)
          .join(`[[${to.replace(/\.md$/i, '')}`)
    }
    if (next !== line) rewritten++
    kept.push(next)
  }
  if (removed > 0 || rewritten > 0) writeFileSync(path, kept.join('\n'))
  return { removed, rewritten }
}

function moveToArchive(reflexDir: string, archiveRoot: string, path: string): string {
  const to = join(archiveRoot, path)
  mkdirSync(dirname(to), { recursive: true })
  renameSync(join(reflexDir, path), to)
  return to
}

async function timed(step: StepName, body: (report: StepReport) => void | Promise<void>, initial: StepReport['status'] = 'ok'): Promise<StepReport> {
  const report: StepReport = { step, status: initial, durationMs: 0, errors: [], details: {} }
  const started = Date.now()
  try {
    await body(report)
  }
  catch (error) {
    report.status = 'failed'
    report.errors.push(error instanceof Error ? error.message : String(error))
  }
  report.durationMs = Date.now() - started
  return report
}

/** Step 1: REFLEX_DIR, its index and the archive folder usable (a failure stops everything). */
function validateStep(options: HygieneOptions): Promise<StepReport> {
  return timed('validate', (step) => {
    step.errors.push(...validateEnvironment(options))
    if (step.errors.length > 0) step.status = 'failed'
  })
}

/** Step 2: the index's dead links and the files it does not reference (reported, even in dry-run). */
function deadLinksStep(options: HygieneOptions): Promise<StepReport> {
  return timed('dead_links', (step) => {
    const scan = scanCurrentMemory(options.reflexDir)
    step.details = {
      references: scan.references.length,
      dead: scan.deadLinks.map((d: IndexReference) => ({ line: d.line, target: d.target })),
      orphans: scan.orphans,
    }
  })
}

/** Each note leaves the vault, then its index row goes: a failed move keeps both. */
async function archiveVaultNotes(vault: NonNullable<HygieneOptions['vault']>, archiveRoot: string, notes: string[]): Promise<void> {
  const movedNotes: string[] = []
  try {
    for (const path of notes) {
      moveToArchive(vault.dir, join(archiveRoot, 'vault'), path)
      movedNotes.push(path)
    }
  }
  finally {
    if (movedNotes.length > 0) await vault.unindexNotes(movedNotes)
  }
}

/** Step 3: the files and vault notes marked decommissioned or obsolete, to the archive. */
function archiveStep(options: HygieneOptions, archiveRoot: string, dryRun: boolean): Promise<StepReport> {
  return timed('archive', async (step) => {
    const marked = scanCurrentMemory(options.reflexDir)
      .files.filter(f => f.status && (DECOMMISSIONED_STATUSES as readonly string[]).includes(f.status))
      .map(f => f.path)
    const vaultProblems: string[] = []
    const vaultNotes = options.vault && existsSync(options.vault.dir) ? decommissionedVaultNotes(options.vault.dir, vaultProblems) : []
    step.details = { files: marked, vaultNotes, ...(vaultProblems.length > 0 ? { vaultProblems } : {}) }
    if (dryRun) return
    if (options.vault && vaultNotes.length > 0) await archiveVaultNotes(options.vault, archiveRoot, vaultNotes)
    // Files first, then the index, and only for the files that did move: a move that fails
    // leaves its file and its line where they were.
    const moved: string[] = []
    try {
      for (const path of marked) {
        moveToArchive(options.reflexDir, archiveRoot, path)
        moved.push(path)
      }
    }
    finally {
      const { removed } = rewriteIndex(options.reflexDir, new Set(moved), new Map(), marked)
      step.details = {
        files: marked,
        vaultNotes,
        archived: moved,
        archivedTo: moved.length + vaultNotes.length > 0 ? archiveRoot : null,
        indexLinesRemoved: removed,
      }
    }
  }, dryRun ? 'simulated' : 'ok')
}

/** Files of identical content: the copy the index references is kept (else the first by path). */
function duplicatesOf(scan: ReturnType<typeof scanCurrentMemory>): Array<{ kept: string, removed: string[] }> {
  const referenced = new Set(scan.references.map(r => r.file).filter(Boolean))
  const groups = new Map<string, string[]>()
  for (const file of scan.files) groups.set(file.sha256, [...(groups.get(file.sha256) ?? []), file.path])
  const duplicates: Array<{ kept: string, removed: string[] }> = []
  for (const paths of groups.values()) {
    if (paths.length < 2) continue
    const kept = paths.find(p => referenced.has(p)) ?? paths[0]!
    duplicates.push({ kept, removed: paths.filter(p => p !== kept) })
  }
  return duplicates
}

/** Step 4: the duplicates to the archive, the index's references to them rewritten to the copy kept. */
function dedupeStep(options: HygieneOptions, archiveRoot: string, dryRun: boolean): Promise<StepReport> {
  return timed('dedupe', (step) => {
    const duplicates = duplicatesOf(scanCurrentMemory(options.reflexDir))
    step.details = { duplicates }
    if (dryRun || duplicates.length === 0) return
    const renames = new Map<string, string>()
    const all = duplicates.flatMap(d => d.removed)
    try {
      for (const d of duplicates) {
        for (const path of d.removed) {
          moveToArchive(options.reflexDir, join(archiveRoot, 'duplicates'), path)
          renames.set(path, d.kept)
        }
      }
    }
    finally {
      const { rewritten } = rewriteIndex(options.reflexDir, new Set(), renames, all)
      step.details = { duplicates, indexLinesRewritten: rewritten, archivedTo: join(archiveRoot, 'duplicates') }
    }
  }, dryRun ? 'simulated' : 'ok')
}

export async function runHygiene(options: HygieneOptions): Promise<HygieneReport> {
  const dryRun = Boolean(options.dryRun)
  const report: HygieneReport = {
    startedAt: options.now.toISOString(), dryRun, validateOnly: Boolean(options.validateOnly),
    reflexDir: options.reflexDir, archiveDir: options.archiveDir, steps: [], exitCode: 0,
  }
  const archiveRoot = join(options.archiveDir, options.now.toISOString().slice(0, 10))

  const validation = await validateStep(options)
  report.steps.push(validation)
  if (validation.status === 'failed') return { ...report, exitCode: 1 }
  if (options.validateOnly) return report

  for (const run of [
    () => deadLinksStep(options),
    () => archiveStep(options, archiveRoot, dryRun),
    () => dedupeStep(options, archiveRoot, dryRun),
  ]) {
    const step = await run()
    report.steps.push(step)
    if (step.status === 'failed') return { ...report, exitCode: 2 }
  }

  return { ...report, exitCode: dryRun ? 3 : 0 }
}
