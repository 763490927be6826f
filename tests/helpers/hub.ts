// Starts the real launcher (`npm start`'s scripts/start.ts) in its own process group, the
// way a person runs it, and signs people in against it.
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { startTs, type Finished, type Running } from './processes'
import { TESTS_TMP } from './database-config'

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export function tempDataDir(prefix = 'hub-'): string {
  return join(mkdtempSync(join(TESTS_TMP, prefix)), 'data')
}

export interface Hub extends Running {
  url: string
  port: number
  dataDir: string
  /** Ctrl-C: SIGINT to the whole process group, then the launcher's exit. */
  interrupt: () => Promise<Finished>
}

export const FOUNDER = { email: 'founder@studio.test', password: 'founder-password-123' }

export async function startHub(options: { dataDir?: string, env?: NodeJS.ProcessEnv, args?: string[] } = {}): Promise<Hub> {
  const port = await freePort()
  const dataDir = options.dataDir ?? tempDataDir()
  const running = startTs('scripts/start.ts', ['--port', String(port), ...(options.args ?? [])], {
    detached: true,
    env: { DATA_DIR: dataDir, HOST: '127.0.0.1', HUB_ADMIN_EMAIL: FOUNDER.email, HUB_ADMIN_PASSWORD: FOUNDER.password, ...options.env },
  })
  await running.waitFor(/hub ready at/, 150_000)
  return {
    ...running,
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    interrupt: async () => {
      if (running.child.exitCode === null) process.kill(-running.child.pid!, 'SIGINT')
      return await running.exited
    },
  }
}

/** Signs in and returns the session cookie header. */
export async function signIn(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  if (response.status !== 200) throw new Error(`sign-in of ${email} failed: ${response.status} ${await response.text()}`)
  const cookie = response.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
  if (!cookie) throw new Error('sign-in returned no cookie')
  return cookie
}
