// Vitest global setup: one migrated template per database kind, so each test file gets a
// fresh, migrated database in a fraction of a second (a PGlite folder copy, or
// CREATE DATABASE … TEMPLATE on the native server). Every project lists this file; the
// first call of the run does the work, later calls reuse it.
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { startEmbeddedServer } from '#db/embedded'
import { connectDatabase } from '#db/connection'
import { migrateDatabase } from '#db/migrate'
import { isProcessAlive } from '#db/process'
import { NATIVE_ADMIN_URL, TESTS_TMP, embeddedTemplateDir, nativeTemplate, nativeUrl } from './database-config'

const state = globalThis as { synedreTemplateUsers?: number }

/** Databases and folders left by runs whose process is gone. */
async function removeLeftovers(admin: postgres.Sql): Promise<void> {
  const databases = await admin<{ datname: string }[]>`select datname from pg_database where datname ~ '^synedre_t[0-9]+_'`
  for (const { datname } of databases) {
    const pid = Number(/^synedre_t(\d+)_/.exec(datname)![1])
    if (!isProcessAlive(pid)) await admin.unsafe(`drop database if exists "${datname}" with (force)`)
  }
  for (const entry of readdirSync(TESTS_TMP)) {
    const pid = Number(/^pglite-template-(\d+)$/.exec(entry)?.[1])
    if (pid && !isProcessAlive(pid)) rmSync(join(TESTS_TMP, entry), { recursive: true, force: true })
  }
}

export async function setup(): Promise<void> {
  state.synedreTemplateUsers = (state.synedreTemplateUsers ?? 0) + 1
  if (process.env.SYNEDRE_TEST_RUN) return
  process.env.SYNEDRE_TEST_RUN = String(process.pid)
  mkdirSync(TESTS_TMP, { recursive: true })

  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  try {
    await removeLeftovers(admin)
    await admin.unsafe(`create database "${nativeTemplate()}"`)
  }
  catch (error) {
    throw new Error(`The native PostgreSQL for tests is not usable at ${NATIVE_ADMIN_URL} (${(error as Error).message}). Run scripts/setup-system.sh, or set TEST_NATIVE_DATABASE_URL.`, { cause: error })
  }
  finally {
    await admin.end()
  }
  const native = await connectDatabase(nativeUrl(nativeTemplate()), { max: 2 })
  await migrateDatabase(native)
  await native.close()

  const server = await startEmbeddedServer(embeddedTemplateDir())
  const embedded = await connectDatabase(server.url, { max: 2, kind: 'embedded' })
  await migrateDatabase(embedded)
  await embedded.close()
  await server.close()
}

export async function teardown(): Promise<void> {
  state.synedreTemplateUsers = (state.synedreTemplateUsers ?? 1) - 1
  if (state.synedreTemplateUsers > 0) return
  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`drop database if exists "${nativeTemplate()}" with (force)`).catch(() => {})
  await admin.end()
  rmSync(embeddedTemplateDir(), { recursive: true, force: true })
}
