// The real Claude Code CLI (@anthropic-ai/claude-code, a dev dependency) spawned by the engine
// in srt's sandbox, as an unprivileged user, against a scripted loopback Anthropic API: it
// edits a file in its checkout, commits, writes the result contract; the events, the
// contract, the deploy and the QA are recorded as with the stand-in. An upgrade of the CLI
// that changes its arguments, its stream or its exit codes fails here.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic'
import { startEngine, type Engine } from '../../fixtures/spawn/engine'
import { startQaSite, type QaSite } from '../../fixtures/spawn/qa-site'
import { actions, classifiedMessage, createTenant, inbox, spawnsOf } from '../../fixtures/spawn/seed'

const CLAUDE = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code-linux-x64/package.json')), 'claude')
const MODEL_KEY = 'sk-ant-api03-real-key-for-the-loopback-api'

describeOnBothDatabases('The real Claude Code CLI in the sandbox', (database) => {
  let engine: Engine
  let api: FakeAnthropic
  let site: QaSite
  beforeAll(async () => {
    site = await startQaSite()
    api = await startFakeAnthropic([
      () => [{ type: 'text', text: 'I will add the greeting page.' }, { type: 'tool_use', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello from the real CLI\n' } }],
      () => [{ type: 'tool_use', name: 'Bash', input: {
        command: 'cd "$(git rev-parse --show-toplevel)" && git add hello.txt && git commit -q -m "feat: hello page" && sha=$(git rev-parse --short HEAD) && '
          + 'printf \'{"status":"ok","routes":["/healthy"],"commits":[{"sha":"%s","message":"feat: hello page"}],"summary":"Added the hello page and committed it.","reply_draft":"Bonjour, la page est en ligne."}\' "$sha" > "$ATLAS_RESULT_FILE" && echo "$sha"',
        description: 'Commit and write the result file',
      } }],
      () => [{ type: 'text', text: 'Done: the hello page is committed and the result file written.' }],
    ])
    engine = await startEngine(database().db, database().url, {
      SPAWN_SANDBOX: 'srt',
      SPAWN_AGENT_BIN: CLAUDE,
      SPAWN_PERMISSION_MODE: 'bypassPermissions',
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: MODEL_KEY,
      SPAWN_AGENT_ENV_PASS: 'DISABLE_TELEMETRY,DISABLE_AUTOUPDATER,DISABLE_ERROR_REPORTING',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      SPAWN_KEEP_WORKDIR: 'always',
      SPAWN_TIMEOUT_SEC: '120',
    })
  }, 120_000)
  afterAll(async () => {
    await engine?.close()
    await api?.close()
    await site?.close()
  })

  it('edits, commits and writes the contract; events, contract, deploy and QA are recorded; the key it holds is a sentinel', async () => {
    const { db } = database()
    const tenant = await createTenant(db, { preprodUrl: site.url })
    const id = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id, subject: 'Une page bonjour' })
    await engine.cycle()
    // The deploy runs in the spawn's checkout (as the worker's user).
    await engine.drain({ config: { ...engine.config, deployCommand: 'cat hello.txt' } })
    const [spawn] = await spawnsOf(db, id)
    expect(spawn, JSON.stringify(spawn?.reason)).toMatchObject({ status: 'succeeded', outcome: 'actioned', resultSource: 'file', wrapperExitCode: 0 })
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_completed', 'deployed', 'qa_passed', 'actioned'])
    // The contract, and the commit in the spawn's own checkout (not the hub's).
    const result = spawn!.result as { commits: Array<{ sha: string }>, routes: string[] }
    expect(result.routes).toEqual(['/healthy'])
    const work = join(engine.spawnRoot, `spawn-${spawn!.id}`, 'work')
    expect(existsSync(join(work, 'hello.txt'))).toBe(true)
    const log = execFileSync('git', ['-c', `safe.directory=${work}`, '-C', work, 'log', '--format=%h %s'], { encoding: 'utf8' })
    expect(log).toContain(`${result.commits[0]!.sha} feat: hello page`)
    expect(spawn!.deploy).toMatchObject({ ok: true, outputTail: 'Hello from the real CLI\n' })
    expect(spawn!.qa).toMatchObject({ passed: true, routes: [{ route: '/healthy', status: 200 }] })
    // The real CLI's stream, stored event by event.
    const events = await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)).orderBy(atlasSpawnEvents.seq)
    const subtypes = events.map(e => e.subtype ?? e.eventType)
    expect(subtypes).toContain('system/init')
    expect(events.some(e => e.eventType === 'tool_result' && e.toolName === 'Write')).toBe(true)
    expect(events.some(e => e.eventType === 'tool_result' && e.toolName === 'Bash')).toBe(true)
    expect(events.find(e => e.eventType === 'result')?.payload).toMatchObject({ type: 'result', subtype: 'success', is_error: false })
    expect(events.at(-1)?.payload).toMatchObject({ type: 'node_pty_exit', result_seen: true })
    // Through the proxy: every request reached the API with the real key, which the CLI never held.
    expect(api.requests.filter(r => r.agentLoop && r.stream).length).toBeGreaterThanOrEqual(3)
    expect(new Set(api.keys)).toEqual(new Set([MODEL_KEY]))
    expect(JSON.stringify(events.map(e => e.payload))).not.toContain(MODEL_KEY)
  }, 240_000)
})
