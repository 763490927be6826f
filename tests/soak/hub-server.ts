// The hub's HTTP server in the soak: the built Nitro server (.output/server/index.mjs), run
// with the environment the launcher (scripts/start.ts) gives it, on the soak's database; a
// service like the others, so a kill takes it down and it is started again. The soak never
// builds it (`npm test` builds before the suites run; a build beside other runs would share
// node_modules/.cache): without a build there is no hub to kill, and the soak says so.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { buildIsCurrent } from '#scripts/lib/build'
import { freePort } from '#layers/atlas/tests/fakes/ports'
import { ROOT } from '../helpers/processes'
import { superviseService, type Service } from './chaos'

export const HUB_SERVER = join(ROOT, '.output/server/index.mjs')

export interface SoakHub {
  url: string
  service: Service
  /** The build is older than the sources (it still runs; the soak says so). */
  stale: boolean
}

/** Waits for /api/health (the launcher's own readiness check). */
export async function waitForHub(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/api/health`)
      if (response.ok) return
      last = `answered ${response.status}`
    }
    catch (error) {
      last = (error as Error).message
    }
    await new Promise(resolve => setTimeout(resolve, 300))
  }
  throw new Error(`the soak's hub did not answer on ${url}/api/health within ${timeoutMs / 1000} s (${last})`)
}

/** The hub server on `databaseUrl`, or null when the hub was never built. */
export async function startSoakHub(databaseUrl: string, env: Record<string, string>, logDir: string): Promise<SoakHub | null> {
  if (!existsSync(HUB_SERVER)) return null
  const port = await freePort()
  const service = superviseService({
    name: 'hub-server',
    kind: 'hub',
    script: HUB_SERVER,
    plainNode: true,
    env: {
      DATABASE_URL: databaseUrl,
      // The session cookie's key: the same for every run of this soak, so a sign-in outlives a restart.
      NUXT_SESSION_PASSWORD: randomBytes(32).toString('hex'),
      PORT: String(port), HOST: '127.0.0.1', NITRO_PORT: String(port), NITRO_HOST: '127.0.0.1',
    },
    restartDelayMs: 1000,
  }, env, join(logDir, 'hub-server.log'))
  const url = `http://127.0.0.1:${port}`
  await waitForHub(url, 60_000)
  return { url, service, stale: !buildIsCurrent(ROOT) }
}
