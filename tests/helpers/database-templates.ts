// Vitest global setup: one migrated template per database kind, so each test file gets a
// fresh, migrated database in a fraction of a second (a PGlite folder copy, or
// CREATE DATABASE … TEMPLATE on the native server).
import { rmSync } from 'node:fs'
import postgres from 'postgres'
import { startEmbeddedServer } from '../../db/embedded'
import { connectDatabase } from '../../db/connection'
import { migrateDatabase } from '../../db/migrate'
import { EMBEDDED_TEMPLATE_DIR, NATIVE_ADMIN_URL, NATIVE_TEMPLATE, nativeUrl } from './database-config'

export async function setup(): Promise<void> {
  rmSync(EMBEDDED_TEMPLATE_DIR, { recursive: true, force: true })
  const server = await startEmbeddedServer(EMBEDDED_TEMPLATE_DIR)
  const embedded = await connectDatabase(server.url, { max: 2, kind: 'embedded' })
  await migrateDatabase(embedded)
  await embedded.close()
  await server.close()

  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  try {
    const stale = await admin<{ datname: string }[]>`select datname from pg_database where datname like 'synedre_test_%' or datname = ${NATIVE_TEMPLATE}`
    for (const { datname } of stale) await admin.unsafe(`drop database if exists "${datname}" with (force)`)
    await admin.unsafe(`create database "${NATIVE_TEMPLATE}"`)
  }
  catch (error) {
    throw new Error(`The native PostgreSQL for tests is not reachable at ${NATIVE_ADMIN_URL} (${(error as Error).message}). Run scripts/setup-system.sh, or set TEST_NATIVE_DATABASE_URL.`, { cause: error })
  }
  finally {
    await admin.end()
  }
  const native = await connectDatabase(nativeUrl(NATIVE_TEMPLATE), { max: 2 })
  await migrateDatabase(native)
  await native.close()
}

export async function teardown(): Promise<void> {
  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`drop database if exists "${NATIVE_TEMPLATE}" with (force)`).catch(() => {})
  await admin.end()
}
