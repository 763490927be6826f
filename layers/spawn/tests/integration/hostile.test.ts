// A hostile stand-in agent (nobody on the team wrote its behaviour into the engine) in each
// sandbox, on both databases: the worker's environment holds the hub's secrets (the database
// address, the SMTP password, provider keys, the model key); the agent prints its environment,
// writes outside its folder and into the hub's checkout, reads the hub's files, connects to
// the hub's database, reads every /proc/*/environ, and leaves a grandchild started with
// `env -i` + `setsid` + a double fork. Nothing of it may work, and the grandchild must be gone
// when the spawn ends.
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { HUB_ROOT } from '#layers/spawn/core/config'
import { isAlive } from '#layers/spawn/core/processes'
import { startEngine, type Engine } from '../fixtures/engine'
import { classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'

const SECRETS = {
  ATLAS_SMTP_PASSWORD: `smtp-pass-${randomUUID()}`,
  ATLAS_IMAP_PASSWORD: `imap-pass-${randomUUID()}`,
  MISTRAL_API_KEY: `mistral-key-${randomUUID()}`,
  OPENAI_API_KEY: `sk-openai-${randomUUID()}`,
  NUXT_SESSION_PASSWORD: `session-${randomUUID()}`,
}
const MODEL_KEY = `sk-ant-api03-real-${randomUUID()}`

/** Host pids whose command line carries the token. */
function processesWith(token: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(token)) found.push(Number(name))
    }
    catch { /* gone */ }
  }
  return found
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(name => join(dir, name)).filter((path) => {
    try {
      return statSync(path).isFile()
    }
    catch {
      return false
    }
  })
}

describeOnBothDatabases('A hostile agent in the sandbox', (database) => {
  let engine: Engine
  beforeAll(async () => {
    engine = await startEngine(database().db, database().url, { ...SECRETS, ANTHROPIC_API_KEY: MODEL_KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', SPAWN_KEEP_WORKDIR: 'always' })
  })
  afterAll(async () => {
    await engine?.close()
  })

  it.each(['srt', 'bwrap'] as const)('%s: no hub secret, no write outside its folder, no database, no survivor', async (sandbox) => {
    const { db } = database()
    const token = `hostile-grandchild-${randomUUID()}`
    const url = new URL(database().url)
    const dbTarget = `${url.hostname}:${url.port || 5432}`
    const hubTarget = join(HUB_ROOT, `hostile-${token}`)
    const absTarget = join(engine.base, `hostile-abs-${token}`)
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    const seen = new Set<number>()
    let polling = true
    const poller = (async () => {
      while (polling) {
        for (const pid of processesWith(token)) seen.add(pid)
        await new Promise(resolve => setTimeout(resolve, 25))
      }
    })()
    const work = await engine.drain({
      env: {
        ...engine.env, STAND_IN_VARIANT: 'hostile', STAND_IN_HOSTILE_MARK: token, STAND_IN_HOSTILE_CONNECT: `${dbTarget},127.0.0.1:5432`,
        STAND_IN_HOSTILE_TARGETS: `${hubTarget},${absTarget}`, STAND_IN_HOSTILE_READS: `${join(HUB_ROOT, 'package.json')},${join(HUB_ROOT, '.env.example')}`,
      },
      config: { ...engine.config, sandbox },
    })
    polling = false
    await poller
    expect(work.outcomes.find(o => o.messageId === id)?.outcome).toBe('actioned')
    expect((await inbox(db, id)).status).toBe('actioned')
    const [spawn] = await spawnsOf(db, id)
    const report = JSON.parse((spawn!.result as { summary: string }).summary) as {
      home: string
      key: string | null
      writes: Record<string, string>
      reads: Record<string, string>
      connections: Record<string, string>
      procEnvirons: number
    }
    const folder = join(engine.spawnRoot, `spawn-${spawn!.id}`)

    // Its environment: an allowlist, with a HOME of its own.
    expect(report.home).toBe(join(folder, 'home'))
    const texts = [
      JSON.stringify(spawn!.result),
      readFileSync(spawn!.logPath!, 'utf8'),
      JSON.stringify(
        await db.select({ payload: atlasSpawnEvents.payload }).from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)),
      ),
      ...filesUnder(folder).map(file => readFileSync(file, 'latin1')),
    ]
    expect(texts.join('\n')).toContain('HOME=')
    const secrets = [database().url, ...Object.values(SECRETS), MODEL_KEY]
    for (const secret of secrets) expect(texts.filter(text => text.includes(secret)), `${secret} leaked`).toEqual([])
    expect(texts.join('\n')).not.toContain('DATABASE_URL')
    // The model key: in either sandbox the agent holds the worker's key injector's placeholder
    // (the injector, outside, writes the real key into the request's header).
    expect(report.key).toMatch(/^sk-ant-placeholder-/)

    // Writes outside its folder land nowhere (refused, or into an empty throwaway tmpfs laid
    // over a hidden folder); the hub's files and the other folders are unreadable.
    const escape = join(folder, 'work', '..', '..', 'hostile-escape')
    expect(Object.keys(report.writes).sort()).toEqual([escape, hubTarget, absTarget].sort())
    for (const target of [escape, hubTarget, absTarget]) expect(existsSync(target), target).toBe(false)
    for (const [target, outcome] of Object.entries(report.reads)) expect(outcome, target).not.toMatch(/^read /)
    // The hub's database is out of reach (no network but the proxy's).
    for (const [target, outcome] of Object.entries(report.connections)) expect(outcome, target).not.toBe('connected')
    // The grandchild that left everything behind was seen running, and is gone.
    expect((report as { grandchild?: string }).grandchild).toBe('running')
    expect(seen.size).toBeGreaterThan(0)
    for (const pid of seen) expect(isAlive(pid), `grandchild ${pid}`).toBe(false)
    expect(processesWith(token)).toEqual([])
  }, 120_000)
})
