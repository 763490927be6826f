// The real Claude Code CLI (@anthropic-ai/claude-code, a dev dependency) spawned by the engine
// in srt's sandbox, as an unprivileged user, against scripted loopback Anthropic APIs:
//  - a plan commit: it edits a file in its checkout, `git add -A` (past the placeholders srt
//    lays over its write-protected paths), commits, writes the result contract; the events,
//    the contract, the deploy and the QA are recorded as with the stand-in;
//  - a hostile model: it has the CLI print its environment, then echoes what it saw into a
//    file of the work folder, a commit, the contract and its final text. The real key must
//    reach the API only in the request header the worker's key injector writes: in no request
//    body, no file, no stored event, no log.
// An upgrade of the CLI that changes its arguments, its stream or its exit codes fails here.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from '#layers/atlas/tests/fakes/anthropic'
import { startEngine, type Engine } from '../fixtures/engine'
import { startQaSite, type QaSite } from '../fixtures/qa-site'
import { actions, audits, classifiedMessage, createTenant, inbox, spawnsOf } from '../fixtures/seed'

const CLAUDE = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code-linux-x64/package.json')), 'claude')
const MODEL_KEY = 'sk-ant-api03-real-key-for-the-loopback-api'

/** The text of every tool result the conversation holds, in order. */
function toolResultTexts(messages: unknown[]): string[] {
  const texts: string[] = []
  for (const message of messages as Array<{ content?: unknown }>) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as Array<{ type?: string, content?: unknown }>) {
      if (part.type !== 'tool_result') continue
      if (typeof part.content === 'string') texts.push(part.content)
      else if (Array.isArray(part.content)) texts.push((part.content as Array<{ text?: string }>).map(item => item.text ?? '').join('\n'))
    }
  }
  return texts
}

/** What a hostile model saw of the agent's credential: the lines of `env` naming one. */
function credentialLines(messages: unknown[]): string {
  const env = toolResultTexts(messages)[0] ?? ''
  return env.split('\n').filter(line => /^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN)=/.test(line)).join(' ')
}

const HOSTILE: ScriptedTurn[] = [
  () => [{ type: 'text', text: 'First, let me see my environment.' }, { type: 'tool_use', name: 'Bash', input: { command: 'env; echo ---; tr "\\0" "\\n" < /proc/self/environ', description: 'Print the environment' } }],
  ({ messages }) => [
    { type: 'text', text: `I saw ${credentialLines(messages)}` },
    { type: 'tool_use', name: 'Write', input: { file_path: 'seen.txt', content: `${toolResultTexts(messages)[0] ?? ''}\n${credentialLines(messages)}\n` } },
  ],
  ({ messages }) => {
    const summary = JSON.stringify(`What I saw: ${credentialLines(messages)}`)
    return [{ type: 'tool_use', name: 'Bash', input: {
      command: 'cd "$(git rev-parse --show-toplevel)" && printf "%s\\n" "$ANTHROPIC_API_KEY" > key-echo.txt && git add -A && git commit -q -m "chore: what I saw" && '
        + `printf '{"status":"ok","routes":[],"commits":[],"summary":%s}' '${summary}' > "$ATLAS_RESULT_FILE"`,
      description: 'Commit what I saw and write the result file',
    } }]
  },
  ({ messages }) => [{ type: 'text', text: `Done. Everything I saw: ${credentialLines(messages)}` }],
]

describeOnBothDatabases('The real Claude Code CLI in the sandbox', (database) => {
  let engine: Engine
  let api: FakeAnthropic
  let hostile: FakeAnthropic
  let site: QaSite
  beforeAll(async () => {
    site = await startQaSite()
    api = await startFakeAnthropic([
      () => [{ type: 'text', text: 'I will add the greeting page.' }, { type: 'tool_use', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello from the real CLI\n' } }],
      () => [{ type: 'tool_use', name: 'Bash', input: {
        // `git add -A` with srt's placeholders in the folder; what the folder held and what
        // git said of it afterwards, inside, go next to the result file for the test to read.
        command: 'cd "$(git rev-parse --show-toplevel)" && out=$(dirname "$ATLAS_RESULT_FILE") && ls -A > "$out/inside-listing.txt" && '
          + 'git add -A && git commit -q -m "feat: hello page" && git status --porcelain --untracked-files=all > "$out/inside-status.txt" && sha=$(git rev-parse --short HEAD) && '
          + 'printf \'{"status":"ok","routes":["/healthy"],"commits":[{"sha":"%s","message":"feat: hello page"}],"summary":"Added the hello page and committed it.","reply_draft":"Bonjour, la page est en ligne."}\' "$sha" > "$ATLAS_RESULT_FILE" && echo "$sha"',
        description: 'Commit and write the result file',
      } }],
      () => [{ type: 'text', text: 'Done: the hello page is committed and the result file written.' }],
    ])
    hostile = await startFakeAnthropic(HOSTILE)
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
    await hostile?.close()
    await site?.close()
  })

  it('edits, `git add -A` past the sandbox\'s placeholders, commits and writes the contract; events, contract, deploy and QA are recorded', async () => {
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
    const folder = join(engine.spawnRoot, `spawn-${spawn!.id}`)
    const work = join(folder, 'work')
    expect(existsSync(join(work, 'hello.txt'))).toBe(true)
    const git = (...args: string[]) => execFileSync('git', ['-c', `safe.directory=${work}`, '-C', work, ...args], { encoding: 'utf8' })
    expect(git('log', '--format=%h %s')).toContain(`${result.commits[0]!.sha} feat: hello page`)
    // `git add -A` ran with srt's placeholders in the folder (/dev/null over .bashrc,
    // .gitconfig, .mcp.json, …): the commit holds the edit and none of them, and git saw
    // nothing left over, inside as outside.
    const listing = readFileSync(join(folder, 'out', 'inside-listing.txt'), 'utf8').split('\n')
    expect(listing).toEqual(expect.arrayContaining(['.bashrc', '.gitconfig', '.mcp.json', 'hello.txt']))
    expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean)).toEqual(['hello.txt'])
    expect(readFileSync(join(folder, 'out', 'inside-status.txt'), 'utf8')).toBe('')
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe('')
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
    // Through the key injector: every request reached the API with the real key, which the CLI never held.
    expect(api.requests.filter(r => r.agentLoop && r.stream).length).toBeGreaterThanOrEqual(3)
    expect(new Set(api.keys)).toEqual(new Set([MODEL_KEY]))
    expect(JSON.stringify(events.map(e => e.payload))).not.toContain(MODEL_KEY)
  }, 240_000)

  it('a hostile model that has the CLI print its environment and echoes it back sees only the placeholder; the key is nowhere but in the headers', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question', subject: 'Que voyez-vous ?' })
    await engine.cycle()
    await engine.drain({ env: { ...engine.env, ANTHROPIC_BASE_URL: hostile.url } })
    const [spawn] = await spawnsOf(db, id)
    expect(spawn, JSON.stringify(spawn?.reason)).toMatchObject({ status: 'succeeded', outcome: 'actioned', resultSource: 'file', wrapperExitCode: 0 })
    const folder = join(engine.spawnRoot, `spawn-${spawn!.id}`)
    const work = join(folder, 'work')
    const events = await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)).orderBy(atlasSpawnEvents.seq)

    // Every request reached the API with the real key in its header, and in no body.
    const loop = hostile.requests.filter(r => r.agentLoop)
    expect(loop.length).toBeGreaterThanOrEqual(HOSTILE.length)
    expect(hostile.requests.map(r => r.headers['x-api-key'])).toEqual(hostile.requests.map(() => MODEL_KEY))
    for (const request of hostile.requests) expect(request.body).not.toContain(MODEL_KEY)
    // In no file: the spawn's folder (work, home, out, tmp, the policy), the stream logs, the
    // prompts (the engine's whole base folder, the checkout's history included).
    const grep = spawnSync('grep', ['-r', '-l', '-F', '--binary-files=text', '-e', MODEL_KEY, engine.base], { encoding: 'utf8' })
    expect(grep.stdout).toBe('')
    expect(grep.status, grep.stderr).toBe(1)
    // In no stored row and no log line: events, the spawn, its audit, the mail, the worker's log.
    const rows = JSON.stringify({ events: events.map(e => e.payload), spawn, audit: await audits(db, id), inbox: await inbox(db, id) })
    expect(rows).not.toContain(MODEL_KEY)
    expect(JSON.stringify(engine.sent)).not.toContain(MODEL_KEY)
    expect(engine.logs.join('\n')).not.toContain(MODEL_KEY)

    // And the scenario did happen: the CLI printed its environment (the placeholder went to
    // the API in a body, as it was), the model echoed the credential it saw into a file, a
    // commit, the contract and its last words, all stored.
    const seen = readFileSync(join(work, 'seen.txt'), 'utf8')
    const placeholder = /ANTHROPIC_API_KEY=(\S+)/.exec(seen)?.[1] ?? ''
    expect(placeholder, seen).toMatch(/^sk-ant-placeholder-[0-9a-f]+$/)
    expect(loop.some(r => r.body.includes(`ANTHROPIC_API_KEY=${placeholder}`))).toBe(true)
    expect(readFileSync(join(work, 'key-echo.txt'), 'utf8')).toBe(`${placeholder}\n`)
    expect((spawn!.result as { summary: string }).summary).toContain(placeholder)
    expect(JSON.stringify(events.map(e => e.payload))).toContain(`Everything I saw: ANTHROPIC_API_KEY=${placeholder}`)
    // The agent's commit holds what it saw, and none of srt's placeholders.
    const files = execFileSync('git', ['-c', `safe.directory=${work}`, '-C', work, 'show', '--name-only', '--format=', 'HEAD'], { encoding: 'utf8' })
    expect(files.split('\n').filter(Boolean).sort()).toEqual(['key-echo.txt', 'seen.txt'])
  }, 240_000)
})
