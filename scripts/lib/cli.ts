// Shared by every command-line entry point (start, automates, db:migrate, user:create):
// a problem a person can fix prints as one clear message with its fix, and exits non-zero.
import { DatabaseSetupError } from '#db/errors'
import { CrontabError } from '#layers/health/core/crontab'

export class UsageError extends Error {
  constructor(message: string, readonly fix: string, readonly exitCode = 2) {
    super(message)
    this.name = 'UsageError'
  }
}

export function explain(error: unknown): { message: string, exitCode: number } {
  if (error instanceof DatabaseSetupError || error instanceof CrontabError) {
    return { message: `${error.message}\n  fix: ${error.fix}`, exitCode: 1 }
  }
  if (error instanceof UsageError) return { message: `${error.message}\n  fix: ${error.fix}`, exitCode: error.exitCode }
  if ((error as { code?: string }).code === '42P01') {
    return { message: `The database has no Synedre OS tables yet (${(error as Error).message}).\n  fix: run npm run db:migrate (npm start does it for you).`, exitCode: 1 }
  }
  return { message: error instanceof Error ? (error.stack ?? error.message) : String(error), exitCode: 1 }
}

/** Runs main and exits with its code; known problems print as "problem / fix". */
export function runCli(main: () => Promise<number>): void {
  main().then(
    code => process.exit(code),
    (error: unknown) => {
      const { message, exitCode } = explain(error)
      process.stderr.write(`${message}\n`)
      process.exit(exitCode)
    },
  )
}
