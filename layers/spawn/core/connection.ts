// The database address a spawn process hands to pg-boss (and to the agent's hooks): the
// DATABASE_URL it was given, or the embedded server's published address.
import { defaultDataDir } from '#db/client'
import { findRunningEmbedded } from '#db/embedded'

export function spawnDatabaseUrl(env: Readonly<Record<string, string | undefined>>): string {
  const url = env.DATABASE_URL?.trim() || findRunningEmbedded(defaultDataDir(env as NodeJS.ProcessEnv))
  if (!url) throw new Error('no database address: set DATABASE_URL, or start the embedded database (npm start)')
  return url
}
