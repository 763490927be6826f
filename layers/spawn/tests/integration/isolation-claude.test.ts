// The real Claude Code CLI in srt's sandbox, told by a scripted loopback API to go looking for
// a second tenant's spawn (its folder, log and scratch), an other checkout and /opt (see
// fixtures/second-tenant.ts): its Bash tool lists and reads each, then builds (node, git).
// Nothing of the second tenant reaches its stream; the build works; the run succeeds.
import { createRequire } from 'node:module'
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { startFakeAnthropic, type FakeAnthropic } from '#layers/atlas/tests/fakes/anthropic'
import { startEngine, type Engine } from '../fixtures/engine'
import { plantSecondTenant, type Planted } from '../fixtures/second-tenant'
import { classifiedMessage, spawnsOf } from '../fixtures/seed'

const CLAUDE = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code-linux-x64/package.json')), 'claude')
const MARKER = `other-tenant-marker-${randomUUID()}`

describeOnBothDatabases('The real Claude Code CLI looking for a second tenant', (database) => {
  let engine: Engine
  let api: FakeAnthropic
  let planted: Planted
  // Filled once the engine (and so the planted paths) exist; the scripted turns read it then.
  let probe = ''
  beforeAll(async () => {
    api = await startFakeAnthropic([
      () => [{ type: 'tool_use', name: 'Bash', input: { command: probe, description: 'Look around' } }],
      () => [{ type: 'tool_use', name: 'Bash', input: {
        command: 'node -e "console.log(\'node \' + 6 * 7)" && git log --format=%s -1 && printf \'{"status":"ok","routes":[],"commits":[],"summary":"Looked around."}\' > "$ATLAS_RESULT_FILE" && echo written',
        description: 'Build and write the result file',
      } }],
      () => [{ type: 'text', text: 'Done.' }],
    ])
    engine = await startEngine(database().db, database().url, {
      SPAWN_SANDBOX: 'srt', SPAWN_AGENT_BIN: CLAUDE, SPAWN_PERMISSION_MODE: 'bypassPermissions',
      ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-api03-isolation',
      SPAWN_AGENT_ENV_PASS: 'DISABLE_TELEMETRY,DISABLE_AUTOUPDATER,DISABLE_ERROR_REPORTING',
      DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1', SPAWN_TIMEOUT_SEC: '120',
    })
    planted = plantSecondTenant(engine, MARKER)
    const quoted = (path: string) => `'${path}'`
    probe = [...planted.files.map(f => `cat ${quoted(f)}`), ...planted.dirs.map(d => `ls -la ${quoted(d)}`), ...Object.keys(planted.parents).map(p => `ls -la ${quoted(p)}`), 'ls /work /opt', 'echo probed'].map(c => `${c} 2>&1`).join('; ')
  }, 120_000)
  afterAll(async () => {
    for (const dir of planted?.cleanup ?? []) rmSync(dir, { recursive: true, force: true })
    await engine?.close()
    await api?.close()
  })

  it('finds none of it, and still builds', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    await engine.drain()
    const [spawn] = await spawnsOf(db, id)
    expect(spawn, JSON.stringify(spawn?.reason)).toMatchObject({ status: 'succeeded', outcome: 'actioned', resultSource: 'file' })
    const events = await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)).orderBy(atlasSpawnEvents.seq)
    const results = events.filter(e => e.eventType === 'tool_result' && e.toolName === 'Bash').map(e => JSON.stringify(e.payload))
    expect(results).toHaveLength(2)
    // The probe ran to its end, every file and folder of the second tenant missing.
    expect(results[0]).toContain('probed')
    expect(results[0]).toMatch(/No such file or directory/)
    // (The names themselves are in the errors it printed: the marker, in the files only, is what must not show.)
    expect(JSON.stringify(events.map(e => e.payload))).not.toContain(MARKER)
    // Its toolchain works.
    expect(results[1]).toContain('node 42')
    expect(results[1]).toContain('init')
    expect(results[1]).toContain('written')
  }, 240_000)
})
