// Throwaway databases for the benchmarks: a fresh database on the local PostgreSQL (the
// server of TEST_NATIVE_DATABASE_URL) or an embedded PGlite server in a temporary folder,
// migrated unless told otherwise. `close()` disconnects and removes it: the native database
// is dropped, the embedded server stopped and its folder deleted.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { connectDatabase, type Database } from '#db/connection'
import { startEmbeddedServer } from '#db/embedded'
import { migrateDatabase } from '#db/migrate'

const NATIVE_ADMIN_URL = process.env.TEST_NATIVE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Options {
  /** Connections in the pool. */
  max: number
  /** Apply the migrations (default true). */
  migrate?: boolean
  /** The server's address (default TEST_NATIVE_DATABASE_URL's): another cluster's, for a bench that sizes its own. */
  adminUrl?: string
}

export async function nativeBenchDatabase(label: string, options: Options): Promise<Database> {
  const name = `synedre_bench_${label}_${process.pid}`
  const adminUrl = options.adminUrl ?? NATIVE_ADMIN_URL
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`drop database if exists "${name}"`)
  await admin.unsafe(`create database "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const database = await connectDatabase(url.toString(), { max: options.max })
  const close = async () => {
    await database.close()
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.end()
  }
  return await prepared({ ...database, close }, options)
}

export async function embeddedBenchDatabase(label: string, options: Options): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), `synedre-bench-${label}-`))
  const server = await startEmbeddedServer(dir)
  const database = await connectDatabase(server.url, { max: options.max, kind: 'embedded' })
  const close = async () => {
    await database.close()
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return await prepared({ ...database, close }, options)
}

async function prepared(database: Database, options: Options): Promise<Database> {
  if (options.migrate === false) return database
  try {
    await migrateDatabase(database)
  }
  catch (error) {
    await database.close()
    throw error
  }
  return database
}
