// Feature 4, the documentary divergence audit: the vault's indexed Markdown notes (mem_notes,
// the inbox left out: it holds drafts, ours included) checked against a rules file —
// canonical values (a name and its value: a note stating another value is flagged), obsolete
// patterns (regexes) and numerically dense tables (better kept in the database). The
// discrepancies make ONE draft per night in the vault inbox, fingerprinted in
// learn_nightly_marks so an unchanged set is not drafted twice. Deterministic: no model.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import { learnNightlyMarks } from '#db/schema/learn'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import type { NightlyFeature } from './context'

/** Where the rules are read when NIGHTLY_DIVERGENCE_RULES does not say. */
export const DIVERGENCE_RULES_DEFAULT = '.synedre/divergence.json'

export const DivergenceRules = z
  .object({
    canonical: z.array(z.object({ name: z.string().trim().min(1), value: z.string().trim().min(1) })).default([]),
    obsolete: z
      .array(
        z.object({
          pattern: z.string().min(1),
          flags: z
            .string()
            .regex(/^[imsu]*$/)
            .default('i'),
          reason: z.string().default(''),
        }),
      )
      .default([]),
    denseTables: z
      .object({ minRows: z.number().int().min(1).default(10), numericShare: z.number().min(0).max(1).default(0.6) })
      .default({ minRows: 10, numericShare: 0.6 }),
  })
  .strict()
export type DivergenceRules = z.infer<typeof DivergenceRules>

export interface Discrepancy { path: string, kind: 'canonical' | 'obsolete' | 'dense-table', detail: string }

export function divergenceRulesPath(vaultDir: string, env: Record<string, string | undefined> = {}): string {
  return env.NIGHTLY_DIVERGENCE_RULES?.trim() || join(vaultDir, DIVERGENCE_RULES_DEFAULT)
}

/** The rules file, parsed; null when absent; an Error naming the file when malformed. */
export function readDivergenceRules(path: string): DivergenceRules | null {
  if (!existsSync(path)) return null
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  }
  catch (error) {
    throw new Error(`divergence rules ${path}: not JSON (${(error as Error).message})`, { cause: error })
  }
  const parsed = DivergenceRules.safeParse(raw)
  if (!parsed.success) throw new Error(`divergence rules ${path}: ${parsed.error.issues.map(i => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`)
  for (const rule of parsed.data.obsolete) {
    try {
      new RegExp(rule.pattern, rule.flags)
    }
    catch (error) {
      throw new Error(`divergence rules ${path}: obsolete pattern ${JSON.stringify(rule.pattern)} is not a regex (${(error as Error).message})`, { cause: error })
    }
  }
  return parsed.data
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A figure as written (`1 490,00`, `1,490.00`, `49`) reduced to its digits and decimal part, for comparison. */
function figure(text: string): string | null {
  const match = /\d[\d\s.,']*/.exec(text)
  if (!match) return null
  const cleaned = match[0].trim().replace(/[\s']/g, '')
  const decimal = /[.,](\d{1,2})$/.exec(cleaned)
  const whole = (decimal ? cleaned.slice(0, -decimal[0].length) : cleaned).replace(/[.,]/g, '')
  const cents = decimal ? decimal[1]!.padEnd(2, '0') : '00'
  return `${Number(whole)}.${cents === '00' ? '' : cents}`.replace(/\.$/, '')
}

const NUMERIC_CELL = /^[-+]?[\d\s.,']*\d[\d\s.,']*\s*(?:%|€|\$|k€|eur|usd)?$/i

/** Markdown tables of at least `minRows` data rows whose cells are mostly numbers. */
function denseTables(body: string, rules: DivergenceRules['denseTables']): Array<{ rows: number, share: number }> {
  const out: Array<{ rows: number, share: number }> = []
  const lines = body.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|')) continue
    let end = i
    while (end < lines.length && lines[end]!.trim().startsWith('|')) end++
    const rows = lines.slice(i, end).filter(l => !/^\s*\|[\s|:-]+\|?\s*$/.test(l)).slice(1)
    const cells = rows.flatMap(r => r.trim().replace(/^\||\|$/g, '').split('|').map(c => c.trim())).filter(c => c.length > 0)
    const share = cells.length === 0 ? 0 : cells.filter(c => NUMERIC_CELL.test(c)).length / cells.length
    if (rows.length >= rules.minRows && share >= rules.numericShare) out.push({ rows: rows.length, share: Math.round(share * 100) / 100 })
    i = end
  }
  return out
}

export function auditNote(path: string, body: string, rules: DivergenceRules): Discrepancy[] {
  const found: Discrepancy[] = []
  for (const { name, value } of rules.canonical) {
    const canonical = figure(value)
    // The name followed on the same line by a figure: the value the note states for it.
    for (const match of body.matchAll(new RegExp(`${escape(name)}[^\\n\\d]{0,40}?(\\d[\\d\\s.,']*)`, 'gi'))) {
      const stated = figure(match[1]!)
      if (stated !== null && stated !== canonical) found.push({ path, kind: 'canonical', detail: `${name}: states ${match[1]!.trim()}, canonical ${value}` })
    }
  }
  for (const rule of rules.obsolete) {
    const match = new RegExp(rule.pattern, rule.flags).exec(body)
    if (match) found.push({ path, kind: 'obsolete', detail: `obsolete pattern /${rule.pattern}/ ("${match[0].slice(0, 60)}")${rule.reason ? `: ${rule.reason}` : ''}` })
  }
  for (const table of denseTables(body, rules.denseTables)) {
    found.push({ path, kind: 'dense-table', detail: `a table of ${table.rows} rows, ${Math.round(table.share * 100)} % numbers: would benefit from database storage` })
  }
  return found
}

export const divergenceAudit: NightlyFeature = {
  name: 'divergence-audit',
  routingKey: null,
  async run(ctx) {
    const rulesPath = divergenceRulesPath(ctx.vaultDir, ctx.env)
    const rules = readDivergenceRules(rulesPath)
    if (!rules) return { counts: { notes: 0, discrepancies: 0 }, items: [], drafts: [], skipped: `no rules file at ${rulesPath}` }
    const notes = await ctx.db.execute<{ path: string, body: string }>(sql`select path, body from mem_notes where space <> 'inbox' order by path`)
    const discrepancies = notes.flatMap(n => auditNote(n.path, n.body, rules))
    const counts = {
      notes: notes.length,
      discrepancies: discrepancies.length,
      canonical: discrepancies.filter(d => d.kind === 'canonical').length,
      obsolete: discrepancies.filter(d => d.kind === 'obsolete').length,
      denseTables: discrepancies.filter(d => d.kind === 'dense-table').length,
      drafted: 0,
      alreadyDrafted: 0,
    }
    const items: Array<Record<string, unknown>> = discrepancies.map(d => ({ ...d }))
    if (discrepancies.length === 0) return { counts, items, drafts: [] }
    const fingerprint = createHash('sha256').update(discrepancies.map(d => `${d.path}\u0000${d.kind}\u0000${d.detail}`).sort().join('\n')).digest('hex')
    const [mark] = await ctx.db.select().from(learnNightlyMarks).where(and(eq(learnNightlyMarks.feature, 'divergence-audit'), eq(learnNightlyMarks.fingerprint, fingerprint)))
    if (mark) return { counts: { ...counts, alreadyDrafted: 1 }, items, drafts: [] }
    if (ctx.dryRun) return { counts, items, drafts: [] }
    const day = ctx.now.toISOString().slice(0, 10)
    const byNote = new Map<string, Discrepancy[]>()
    for (const d of discrepancies) byNote.set(d.path, [...byNote.get(d.path) ?? [], d])
    const body = [
      `# Documentary divergences, ${day}`,
      '',
      `${discrepancies.length} discrepancy(ies) in ${byNote.size} note(s) against the rules of \`${rulesPath}\`. A person corrects the notes; nothing was changed.`,
      ...[...byNote.entries()].flatMap(([path, list]) => ['', `## ${path}`, ...list.map(d => `- **${d.kind}**: ${d.detail}`)]),
    ].join('\n')
    const path = writeInboxNote(ctx.vaultDir, { name: `nightly/divergence-${day}.md`, overwrite: true, frontmatter: { type: 'divergence-report', source: 'nightly-consolidation', feature: 'divergence-audit', fingerprint, created: ctx.now.toISOString() }, body })
    await ctx.db.insert(learnNightlyMarks).values({ feature: 'divergence-audit', fingerprint, ref: path }).onConflictDoNothing()
    return { counts: { ...counts, drafted: 1 }, items, drafts: [path] }
  },
}
