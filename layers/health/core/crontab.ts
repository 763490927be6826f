// automates/crontab, in standard cron syntax, is the one schedule: production installs it
// into the system cron, and `npm start` runs the same lines in-process. Every job line
// calls `$SYNEDRE_HOME/scripts/automate <name> [flags]`.
import { Cron } from 'croner'

export interface CrontabEntry {
  line: number
  schedule: string
  automation: string
  args: string[]
}

export class CrontabError extends Error {
  constructor(readonly file: string, readonly line: number, problem: string, readonly fix: string) {
    super(`${file}:${line}: ${problem}`)
    this.name = 'CrontabError'
  }
}

const ENV_LINE = /^[A-Za-z_][A-Za-z0-9_]*\s*=/
const COMMAND = /^(?:\S*\/)?scripts\/automate\s+([a-z0-9][a-z0-9-]*)((?:\s+\S+)*)\s*$/

export function cronPattern(schedule: string): Cron {
  return new Cron(schedule, { paused: true, mode: '5-part', legacyMode: true })
}

export function parseCrontab(text: string, file: string, knownAutomations: readonly string[]): CrontabEntry[] {
  const entries: CrontabEntry[] = []
  text.split('\n').forEach((raw, index) => {
    const lineNumber = index + 1
    const line = raw.trim()
    if (!line || line.startsWith('#') || ENV_LINE.test(line)) return
    const fields = line.split(/\s+/)
    if (fields.length < 6) {
      throw new CrontabError(file, lineNumber, `expected five schedule fields and a command, found "${line}"`,
        'Write it as "m h dom mon dow $SYNEDRE_HOME/scripts/automate <name> [flags]".')
    }
    const schedule = fields.slice(0, 5).join(' ')
    try {
      cronPattern(schedule).stop()
    }
    catch (error) {
      throw new CrontabError(file, lineNumber, `the schedule "${schedule}" does not parse (${(error as Error).message})`,
        'Use five standard cron fields: minute hour day-of-month month day-of-week.')
    }
    const command = fields.slice(5).join(' ')
    if (/["'`\\;|&<>]/.test(command)) {
      throw new CrontabError(file, lineNumber, `the command "${command}" uses shell quoting or operators`,
        'Flags are plain words; put anything more complex in the automate itself.')
    }
    const match = COMMAND.exec(command)
    if (!match) {
      throw new CrontabError(file, lineNumber, `the command "${command}" does not call scripts/automate`,
        'Every job runs "$SYNEDRE_HOME/scripts/automate <name> [flags]" so it goes through the supervision wrapper.')
    }
    const automation = match[1]!
    if (!knownAutomations.includes(automation)) {
      throw new CrontabError(file, lineNumber, `unknown automate "${automation}"`,
        `Known automates: ${knownAutomations.join(', ')}.`)
    }
    const args = (match[2] ?? '').trim().split(/\s+/).filter(Boolean)
    entries.push({ line: lineNumber, schedule, automation, args })
  })
  return entries
}

/** The crontab for the system cron: the project's location filled in. */
export function renderSystemCrontab(text: string, home: string, envFile?: string): string {
  // cron gives jobs almost no environment: scripts/automate reads this file when it is named.
  return `SYNEDRE_HOME=${home}\n${envFile ? `SYNEDRE_ENV_FILE=${envFile}\n` : ''}${text}`
}
