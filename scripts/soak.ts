// npm run soak -- --minutes N [--seed S] [--rate MAILS_PER_MIN] [--kill-every MIN-MAX] [--settle SEC]
//                  [--database embedded|native] [--victims NAME,NAME] [--intent INTENT] [--keep-logs] [--json]
// The chaos soak (tests/soak/soak.ts): mail, collector, orchestrator, workers, approvals, the
// hub's HTTP server (when built) and the database as real processes, one process group
// SIGKILLed every MIN–MAX seconds (default 20–60, seeded), then the system left to settle and
// the invariants checked and printed with their counts. Exit 0 when the system settled and all
// hold, 1 otherwise, 2 on bad flags. Needs the PostgreSQL 15 binaries, Dovecot and bubblewrap
// (scripts/setup-system.sh); the hub's server needs a build in .output (`npm test` makes one).
import { parseArgs } from 'node:util'
import { runCli, UsageError } from './lib/cli'
import { runSoak, type SoakOptions } from '#tests/soak/soak'
import { DATABASE_KINDS, type SoakDatabaseKind } from '#tests/soak/database'
import { INTENTS, isIntent } from '#layers/spawn/core/vocabulary'

const USAGE = 'npm run soak -- --minutes N [--seed S] [--rate MAILS_PER_MIN] [--kill-every MIN-MAX] [--settle SEC] [--database embedded|native] [--victims NAME,NAME] [--intent INTENT] [--keep-logs] [--json]'

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, got "${raw}"`, `e.g. --${name} ${fallback}`)
  return value
}

export function parseSoakArgs(args: string[]): Omit<SoakOptions, 'log'> & { json: boolean } {
  let values
  try {
    ({ values } = parseArgs({ args, options: { 'minutes': { type: 'string' }, 'seed': { type: 'string' }, 'rate': { type: 'string' }, 'kill-every': { type: 'string' }, 'settle': { type: 'string' }, 'database': { type: 'string' }, 'victims': { type: 'string' }, 'intent': { type: 'string' }, 'keep-logs': { type: 'boolean' }, 'json': { type: 'boolean' } } }))
  }
  catch (error) {
    throw new UsageError((error as Error).message, USAGE)
  }
  if (values.intent !== undefined && !isIntent(values.intent)) throw new UsageError(`--intent must be one of ${INTENTS.join(', ')}, got "${values.intent}"`, 'e.g. --intent noise (mail that spawns nothing)')
  if (values.database !== undefined && !(DATABASE_KINDS as readonly string[]).includes(values.database)) throw new UsageError(`--database must be embedded or native, got "${values.database}"`, 'e.g. --database native (without it, the seed chooses)')
  if (values.minutes === undefined) throw new UsageError('--minutes is required', 'e.g. npm run soak -- --minutes 10')
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(values['kill-every'] ?? '20-60')
  if (!range || Number(range[1]) <= 0 || Number(range[1]) > Number(range[2])) throw new UsageError(`--kill-every must be MIN-MAX seconds, got "${values['kill-every']}"`, 'e.g. --kill-every 20-60')
  const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed)
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed must be a whole number ≥ 0, got "${values.seed}"`, 'e.g. --seed 42')
  return {
    minutes: positive('minutes', values.minutes, 10),
    seed,
    rate: positive('rate', values.rate, 40),
    killEverySec: [Number(range[1]), Number(range[2])],
    settleSec: positive('settle', values.settle, 180),
    database: values.database as SoakDatabaseKind | undefined,
    victims: values.victims?.split(',').map(name => name.trim()).filter(Boolean),
    intent: values.intent,
    keepLogs: values['keep-logs'] ?? false,
    json: values.json ?? false,
  }
}

runCli(async () => {
  const options = parseSoakArgs(process.argv.slice(2))
  const report = await runSoak({ ...options, log: line => process.stdout.write(`${line}\n`) })
  const byService = report.kills.reduce<Record<string, number>>(
    (counts, kill) => ({ ...counts, [kill.service]: (counts[kill.service] ?? 0) + 1 }),
    {},
  )
  const groups = report.kills.filter(kill => kill.members.length > 1).length
  process.stdout.write(`[soak] seed ${report.seed}, ${report.database} database, ${report.hub ? 'hub server run' : 'no hub server (no build)'}: ${report.delivered} mails, ${report.kills.length} kills (${Object.entries(byService).map(([name, n]) => `${name} ${n}`).join(', ')}; ${groups} of a group with children), restarts ${Object.entries(report.restarts).map(([name, n]) => `${name} ${n}`).join(', ')}, ${report.settled ? `settled in ${report.settling.waitedSec} s` : `NOT settled after ${report.settling.waitedSec} s (${report.settling.last})`}\n`)
  for (const invariant of report.invariants) {
    process.stdout.write(`[soak] ${invariant.ok ? 'HOLDS ' : 'BROKEN'} ${invariant.name} — ${invariant.checked}\n`)
    for (const offender of invariant.offenders) process.stdout.write(`[soak]        ${offender}\n`)
  }
  const broken = [...(report.settled ? [] : ['the system did not settle']), ...report.invariants.filter(i => !i.ok).map(i => i.name)]
  process.stdout.write(`[soak] ${report.ok ? 'settled, all invariants hold' : `broken: ${broken.join('; ')} (logs kept in ${report.logDir})`}\n`)
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`)
  return report.ok ? 0 : 1
})
