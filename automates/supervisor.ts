// The in-process supervisor: runs automates/crontab at its cadences, each job as a child
// process through scripts/automate, exactly as the system cron would.
//   npm run supervisor -- [--crontab FILE] [--once]
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { Db } from '#db/client'
import { parseCrontab, type CrontabEntry } from '#layers/health/core/crontab'
import { startScheduler, type Scheduler } from '#layers/health/core/scheduler'
import { syncAutomations } from '#layers/health/core/automations'
import { automateNames, automates } from './registry'

export const DEFAULT_CRONTAB = fileURLToPath(new URL('./crontab', import.meta.url))
const RUNNER = fileURLToPath(new URL('./run.ts', import.meta.url))

export function readCrontab(file: string): CrontabEntry[] {
  return parseCrontab(readFileSync(file, 'utf8'), file, automateNames)
}

export interface Supervisor extends Scheduler {
  entries: CrontabEntry[]
}

export interface SupervisorOptions {
  db: Db
  databaseUrl: string
  crontabFile?: string
  log?: (line: string) => void
  paused?: boolean
}

export async function startSupervisor(options: SupervisorOptions): Promise<Supervisor> {
  const log = options.log ?? (line => process.stdout.write(`${line}\n`))
  const entries = readCrontab(options.crontabFile ?? DEFAULT_CRONTAB)
  const definitions = new Map(await Promise.all(entries.map(async e => [e.automation, await automates[e.automation]!()] as const)))
  await syncAutomations(options.db, entries, name => definitions.get(name))
  const children = new Set<ChildProcess>()

  const launch = (entry: CrontabEntry) => new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, entry.automation, ...entry.args], {
      env: { ...process.env, DATABASE_URL: options.databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.add(child)
    const prefix = (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach(line => log(`[${entry.automation}] ${line}`))
    child.stdout.on('data', prefix)
    child.stderr.on('data', prefix)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      children.delete(child)
      resolve(code ?? (signal ? 128 : 1))
    })
  })

  const scheduler = startScheduler(entries, { launch, log }, { paused: options.paused })
  return {
    ...scheduler,
    entries,
    stop: async () => {
      for (const child of children) child.kill('SIGTERM')
      await scheduler.stop()
    },
  }
}

async function main(): Promise<number> {
  const { openDatabase } = await import('#db/client')
  const { migrateDatabase } = await import('#db/migrate')
  const { seedAgents } = await import('#layers/agents/core/seed')
  const { values } = parseArgs({ options: { crontab: { type: 'string' }, once: { type: 'boolean' } } })
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  try {
    await migrateDatabase(database)
    // The spawns are routed to registry agents: the roster must exist wherever automates run.
    await seedAgents(database.db)
    const supervisor = await startSupervisor({
      db: database.db,
      databaseUrl: database.url,
      crontabFile: values.crontab,
      paused: values.once,
    })
    if (values.once) {
      const codes = await supervisor.runAll()
      await supervisor.stop()
      return codes.some(code => code !== 0) ? 1 : 0
    }
    for (const { automation, next } of supervisor.nextRuns()) console.log(`[supervisor] ${automation}: next run ${next?.toISOString() ?? 'never'}`)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    })
    await supervisor.stop()
    return 0
  }
  finally {
    await database.close()
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { runCli } = await import('#scripts/lib/cli')
  runCli(main)
}
