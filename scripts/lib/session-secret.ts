import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The key that seals session cookies: NUXT_SESSION_PASSWORD when set, otherwise one made
 * on first start and kept (mode 0600) in the data folder, so sessions survive restarts.
 */
export function sessionSecret(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.NUXT_SESSION_PASSWORD) {
    if (env.NUXT_SESSION_PASSWORD.length < 32) throw new Error('NUXT_SESSION_PASSWORD must have at least 32 characters.')
    return env.NUXT_SESSION_PASSWORD
  }
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, 'session-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  const secret = randomBytes(32).toString('hex')
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' })
  return secret
}
