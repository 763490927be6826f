import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const TESTS_TMP = fileURLToPath(new URL('../.tmp', import.meta.url))
export const EMBEDDED_TEMPLATE_DIR = join(TESTS_TMP, 'pglite-template')
export const NATIVE_ADMIN_URL = process.env.TEST_NATIVE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const NATIVE_TEMPLATE = 'synedre_template'

export function nativeUrl(database: string): string {
  const url = new URL(NATIVE_ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
}
