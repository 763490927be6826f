// A database test runs on both databases: describeOnBothDatabases registers the same suite
// twice, "[embedded]" (PGlite + pgvector over pglite-socket) and "[native]" (PostgreSQL 15 +
// pgvector), each on a fresh migrated copy of the template. The suites vitest.config.ts lists
// in `oneDatabase` (their subject is a process, not SQL) run on the embedded one only.
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject } from 'vitest'
import { startEmbeddedServer } from '#db/embedded'
import { connectDatabase, type Database } from '#db/connection'
import { ROOT } from './processes'
import { NATIVE_ADMIN_URL, TESTS_TMP, embeddedTemplateDir, nativeTemplate, nativeTestDatabasePrefix, nativeUrl } from './database-config'

export const DATABASE_KINDS = ['embedded', 'native'] as const
export type DatabaseKind = typeof DATABASE_KINDS[number]

export interface TestDatabase extends Database {
  testKind: DatabaseKind
  /** The folder of the embedded copy (embedded only). */
  dataDir?: string
}

export async function createTestDatabase(kind: DatabaseKind, options: { max?: number } = {}): Promise<TestDatabase> {
  if (kind === 'embedded') {
    const dataDir = mkdtempSync(join(TESTS_TMP, 'pglite-'))
    cpSync(embeddedTemplateDir(), dataDir, { recursive: true })
    rmSync(join(dataDir, 'embedded-owner.json'), { force: true })
    const server = await startEmbeddedServer(dataDir)
    const database = await connectDatabase(server.url, { max: options.max ?? 5, kind: 'embedded' })
    return {
      ...database,
      testKind: kind,
      dataDir,
      close: async () => {
        await database.close()
        await server.close()
        rmSync(dataDir, { recursive: true, force: true })
      },
    }
  }
  const name = `${nativeTestDatabasePrefix()}${randomBytes(6).toString('hex')}`
  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database "${name}" template "${nativeTemplate()}"`)
  await admin.end()
  const database = await connectDatabase(nativeUrl(name), { max: options.max ?? 5 })
  return {
    ...database,
    testKind: kind,
    close: async () => {
      await database.close()
      const cleanup = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`)
      await cleanup.end()
    },
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Test files (from the project root) that run on the embedded database alone, with why. */
    oneDatabase: Record<string, string>
  }
}

/** The kinds the calling test file runs on: both, unless vitest.config.ts lists it in `oneDatabase`. */
function kindsForThisFile(): readonly DatabaseKind[] {
  const file = relative(ROOT, expect.getState().testPath ?? '')
  return Object.hasOwn(inject('oneDatabase') ?? {}, file) ? ['embedded'] : DATABASE_KINDS
}

export function describeOnBothDatabases(title: string, body: (database: () => TestDatabase, kind: DatabaseKind) => void): void {
  describe.each(kindsForThisFile())(`${title} [%s]`, (kind) => {
    let database: TestDatabase | undefined
    beforeAll(async () => {
      database = await createTestDatabase(kind)
    })
    afterAll(async () => {
      await database?.close()
    })
    body(() => {
      if (!database) throw new Error('the test database is not open yet')
      return database
    }, kind)
  })
}
