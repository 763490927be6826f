import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const TESTS_TMP = fileURLToPath(new URL('../.tmp', import.meta.url))
export const NATIVE_ADMIN_URL = process.env.TEST_NATIVE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * One id per test run (the vitest main process), set by the global setup and inherited by
 * the workers, so several runs on one machine never share or drop each other's databases.
 */
export function runId(): string {
  const id = process.env.SYNEDRE_TEST_RUN
  if (!id) throw new Error('SYNEDRE_TEST_RUN is not set: run the suites through vitest (tests/helpers/database-templates.ts sets it)')
  return id
}

export const embeddedTemplateDir = () => join(TESTS_TMP, `pglite-template-${runId()}`)
export const nativeTemplate = () => `synedre_t${runId()}_template`
export const nativeTestDatabasePrefix = () => `synedre_t${runId()}_`

export function nativeUrl(database: string): string {
  const url = new URL(NATIVE_ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
}
