// Every table's content as one digest, to prove a dry-run wrote nothing. The supervision
// wrapper's own rows (ops_cron_runs: the run's record; ops_locks: its lease) are left out:
// every run writes them, dry or not. And a folder's files, for the vault.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'

export const WRAPPER_TABLES = ['ops_cron_runs', 'ops_locks']

export async function everyTableDigest(db: Db): Promise<Record<string, string>> {
  const rows = await db.execute<{ name: string }>(sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`)
  const out: Record<string, string> = {}
  for (const { name } of rows) {
    if (WRAPPER_TABLES.includes(name)) continue
    const [row] = await db.execute<{ digest: string | null }>(sql.raw(`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${name}" t`))
    out[name] = row?.digest ?? ''
  }
  return out
}

/** Every file below `dir`, by relative path, with its text: a folder's state to compare before and after. */
export function folderContents(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    if (!existsSync(d)) return
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p, 'utf8')
    }
  }
  walk(dir)
  return out
}
