// One way to reach the database for every process: postgres.js + drizzle.
//   DATABASE_URL set   → that server (PostgreSQL ≥ 15 with pgvector)
//   DATABASE_URL unset → the embedded PGlite under DATA_DIR, started here or, when another
//                        process already serves it, reached at the address it published.
import { join } from 'node:path'
import { connectDatabase, type Database } from './connection'
import { findAnsweringEmbedded, startEmbeddedServer } from './embedded'

export type { Database, Db, Sql, Tx } from './connection'
export { redactUrl } from './connection'

export interface OpenDatabaseOptions {
  databaseUrl?: string
  dataDir?: string
  /** Connection pool size; automates need few. */
  max?: number
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATA_DIR || join(process.cwd(), '.data')
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl) return await connectDatabase(options.databaseUrl, { max: options.max })
  const dataDir = options.dataDir ?? defaultDataDir()
  // Trusted only when it answers with our password; a stale owner file is removed (and said so).
  const running = await findAnsweringEmbedded(dataDir)
  const server = running ? null : await startEmbeddedServer(dataDir)
  try {
    const database = await connectDatabase(running ?? server!.url, { max: options.max, kind: 'embedded' })
    return {
      ...database,
      close: async () => {
        await database.close()
        await server?.close()
      },
    }
  }
  catch (error) {
    await server?.close()
    throw error
  }
}
