// Starts the real launcher (`npm start`'s scripts/start.ts) in its own process group, the
// way a person runs it, and signs people in against it.
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { startTs, type Finished, type Running } from './processes'
import { connectDatabase, type Database } from '#db/connection'
import { findRunningEmbedded } from '#db/embedded'
import { createUser } from '#server/core/users'
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

/**
 * Test files start hubs side by side: a free port can be taken by another between the probe
 * and the hub's listen. The launcher then refuses to start (it checks the answers are its own
 * server's), and the hub starts again on another port.
 */
export async function startHub(options: { dataDir?: string, env?: NodeJS.ProcessEnv, args?: string[] } = {}): Promise<Hub> {
  const dataDir = options.dataDir ?? tempDataDir()
  // What the refused starts printed (the founder's creation, say) stays in the hub's output.
  let earlier = ''
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const running = startTs('scripts/start.ts', ['--port', String(port), ...(options.args ?? [])], {
      detached: true,
      env: { DATA_DIR: dataDir, HOST: '127.0.0.1', HUB_ADMIN_EMAIL: FOUNDER.email, HUB_ADMIN_PASSWORD: FOUNDER.password, ...options.env },
    })
    try {
      await running.waitFor(/hub ready at/, 150_000)
    }
    catch (error) {
      if (attempt < 3 && /Port \d+ is already in use/.test(running.output())) {
        earlier += (await running.exited).output
        continue
      }
      throw error
    }
    return {
      ...running,
      output: () => earlier + running.output(),
      url: `http://127.0.0.1:${port}`,
      port,
      dataDir,
      interrupt: async () => {
        if (running.child.exitCode === null) process.kill(-running.child.pid!, 'SIGINT')
        return await running.exited
      },
    }
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

/**
 * Creates an operator and a viewer on the hub's database, in this process (the same
 * createUser the user:create CLI calls; the CLI itself is proven in start.test.ts and
 * hardening.test.ts), and signs them and the founder in: their cookies by role.
 */
export async function signInEveryRole(hub: Hub): Promise<Record<'founder' | 'operator' | 'viewer', string>> {
  const cookies = { founder: await signIn(hub.url, FOUNDER.email, FOUNDER.password), operator: '', viewer: '' }
  const database = await hubDatabase(hub)
  try {
    for (const role of ['operator', 'viewer'] as const) {
      await createUser(database.db, { email: `${role}@studio.test`, role, password: `${role}-password-123` }, 'test:signInEveryRole')
    }
  }
  finally {
    await database.close()
  }
  for (const role of ['operator', 'viewer'] as const) cookies[role] = await signIn(hub.url, `${role}@studio.test`, `${role}-password-123`)
  return cookies
}

/** A connection to the hub's own embedded database, to seed or read what the test needs. */
export async function hubDatabase(hub: Hub, max = 1): Promise<Database> {
  const url = findRunningEmbedded(hub.dataDir)
  if (!url) throw new Error(`no embedded database runs for ${hub.dataDir}`)
  return await connectDatabase(url, { max })
}
