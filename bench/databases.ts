// Throwaway databases for the benchmarks: a fresh database on the local PostgreSQL (the
// server of TEST_NATIVE_DATABASE_URL) or an embedded PGlite server in a temporary folder,
// migrated unless told otherwise. `close()` disconnects and removes it: the native database
// is dropped, the embedded server stopped and its folder deleted. An embedded folder is a
// copy of one the process initialised (and migrated, or not) once: a new PGlite folder costs
// 4–6 s of initdb, a copy under 1 s; the copy's content is the same.
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { connectDatabase, type Database } from '#db/connection'
import { startEmbeddedServer, type EmbeddedServer } from '#db/embedded'
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

const embeddedTemplates = new Map<boolean, Promise<string>>()

/**
 * This process's embedded folder, made once: initialised (the unmigrated one), or a copy of
 * that one migrated (so initdb runs once per process); removed when the process exits.
 */
function embeddedTemplate(migrate: boolean): Promise<string> {
  let template = embeddedTemplates.get(migrate)
  if (!template) {
    template = (async () => {
      const dir = mkdtempSync(join(tmpdir(), `synedre-bench-template-`))
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
      if (migrate) {
        cpSync(await embeddedTemplate(false), dir, { recursive: true })
        privateFolders(dir)
      }
      const server = await startEmbeddedServer(dir)
      try {
        if (migrate) {
          // Two connections: the migrator holds its lock on one and migrates on the other.
          const database = await connectDatabase(server.url, { max: 2, kind: 'embedded' })
          try {
            await migrateDatabase(database)
          }
          finally {
            await database.close()
          }
        }
      }
      finally {
        await server.close()
      }
      return dir
    })()
    // A failed template is not kept: the next bench tries again.
    template.catch(() => embeddedTemplates.delete(migrate))
    embeddedTemplates.set(migrate, template)
  }
  return template
}

/** The copy's folders private again, as the embedded server wants its data folder (cpSync makes them 0755). */
function privateFolders(dir: string): void {
  chmodSync(dir, 0o700)
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) privateFolders(join(dir, entry.name))
}

export async function embeddedBenchDatabase(label: string, options: Options): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), `synedre-bench-${label}-`))
  let server: EmbeddedServer
  try {
    cpSync(await embeddedTemplate(options.migrate !== false), dir, { recursive: true })
    privateFolders(dir)
    server = await startEmbeddedServer(dir)
  }
  catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const database = await connectDatabase(server.url, { max: options.max, kind: 'embedded' })
  const close = async () => {
    await database.close()
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { ...database, close }
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
