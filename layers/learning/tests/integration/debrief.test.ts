// The post-project debrief (issue 18 Deliver 5) on both databases: the audit bundle and its
// cap, the ROI guard and its override, the agent CLI in read-only mode (a stand-in speaking
// the CLI's result protocol) with its two attempts, the facade's scripted loopback model
// behind it (invalid answers, down, echoing the prompt), and the note: a draft in the inbox.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { spawnProcess } from '#layers/ai/core/clients/process-runner'
import type { LedgerEntry } from '#layers/ai/core/ledger'
import { learnLessons } from '#db/schema/learn'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { memoryFolders, type MemoryFolders } from '#layers/memory/tests/fixtures/folders'
import { buildBundle, BUNDLE_MAX_CHARS, DebriefError, findProject, renderBundle } from '../../core/debrief/bundle'
import { runDebrief } from '../../core/debrief/debrief'
import { AGENT_CLI_PAUSE_MS, completionIsLoopback, FACADE_BACKOFF_MS, readOnlyAgentArgs } from '../../core/debrief/model'
import { DEBRIEF_SECTIONS } from '../../core/debrief/prompt'
import { spawnOn } from '../fixtures/spawns'

const AGENT = fileURLToPath(new URL('../fixtures/debrief-agent.mjs', import.meta.url))
const GOOD = DEBRIEF_SECTIONS.map((title, i) => `## ${i + 1}. ${title}\nscripted ${i + 1}`).join('\n\n')

describe('the debrief model plan (no database)', () => {
  it('launches the agent CLI without any tool, and knows a loopback provider', () => {
    const args = readOnlyAgentArgs({ model: 'claude-sonnet-4-6', system: 'sys', prompt: '--tools=Bash' })
    expect(args).toContain('--tools=')
    expect(args.slice(0, args.indexOf('--')).filter(arg => arg.startsWith('--tools') || arg.startsWith('--allowedTools'))).toEqual(['--tools='])
    expect(args).toContain('--permission-mode=dontAsk')
    expect(args.at(-2)).toBe('--')
    expect(args.at(-1)).toBe('--tools=Bash')
    expect(completionIsLoopback({ MISTRAL_API_KEY: 'k', MISTRAL_BASE_URL: 'http://127.0.0.1:9/v1' })).toBe(true)
    expect(completionIsLoopback({ MISTRAL_API_KEY: 'k' })).toBe(false)
    expect(completionIsLoopback({ MISTRAL_API_KEY: 'k', MISTRAL_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k' })).toBe(false)
  })
})

describeOnBothDatabases('post-project debrief', (database) => {
  let model: ScriptedModel
  let folders: MemoryFolders
  let agentLog: string
  let sleeps: number[]
  let ledger: LedgerEntry[]
  beforeAll(async () => {
    model = await startScriptedModel()
    folders = memoryFolders('synedre-debrief-')
    agentLog = join(folders.root, 'agent.log')
  })
  afterAll(async () => {
    await model?.close()
    folders?.remove()
  })
  beforeEach(() => {
    model.reset()
    sleeps = []
    ledger = []
    rmSync(agentLog, { force: true })
  })

  function deps(agent: { mode?: string, bin?: string } = {}) {
    const env: Record<string, string | undefined> = { ...model.env, SPAWN_AGENT_BIN: agent.bin ?? AGENT, DEBRIEF_AGENT_MODE: agent.mode ?? 'ok', DEBRIEF_AGENT_LOG: agentLog, PATH: process.env.PATH }
    return {
      db: database().db,
      vaultDir: folders.vaultDir,
      now: () => new Date('2026-11-30T10:00:00Z'),
      model: {
        ai: model.facade(database().db),
        env,
        runner: spawnProcess,
        sleep: async (ms: number) => void sleeps.push(ms),
        recordLedger: async (entry: LedgerEntry) => void ledger.push(entry),
      },
    }
  }
  const inboxNotes = () => (existsSync(join(folders.vaultDir, 'inbox', 'debriefs')) ? readdirSync(join(folders.vaultDir, 'inbox', 'debriefs')) : [])
  const permanent = () => (existsSync(join(folders.vaultDir, 'permanent')) ? readdirSync(join(folders.vaultDir, 'permanent'), { recursive: true }) : [])

  async function project(tasks: number) {
    const site = await worksite(database().db, tasks)
    for (const task of site.tasks) {
      await spawnOn(database().db, { taskId: task.id, events: [{ type: 'assistant', text: `Working on ${task.title}` }, { type: 'tool_result', tool: 'Bash', text: 'npm test: 3 passed' }], iteration: { action: 'ran the tests', observation: 'green' } })
    }
    const [scar] = await database().db.insert(learnLessons).values({ kind: 'failure', title: 'Deploy without smoke test', checkAdded: 'smoke test before deploy', sourceSpawnId: await spawnOn(database().db, { taskId: site.tasks[0]!.id, status: 'failed' }) }).returning()
    return { ...site, scar: scar! }
  }

  it('bundles the project: work items, iterations, spawns with their events, linked scars; the rendering is capped', async () => {
    const site = await project(3)
    const found = await findProject(database().db, { project: site.project.id })
    const bundle = await buildBundle(database().db, found)
    expect(bundle.workItems).toBe(4)
    expect(bundle.tasks.map(t => t.title).sort()).toEqual(['Tâche 1', 'Tâche 2', 'Tâche 3'])
    expect(bundle.iterations).toHaveLength(3)
    expect(bundle.spawns).toHaveLength(4)
    expect(bundle.spawns.flatMap(s => s.events)).toContain('tool_result(Bash): npm test: 3 passed')
    expect(bundle.scars.map(s => s.title)).toEqual(['Deploy without smoke test'])
    expect(bundle.tokens).toMatchObject({ actualIn: 4_000, actualOut: 800, briefingBudget: 3_200, spawns: 4 })
    const huge = { ...bundle, spawns: Array.from({ length: 10 }, (_, i) => ({ ...bundle.spawns[0]!, id: `s${i}`, events: Array.from({ length: 20 }, () => 'x'.repeat(240)) })), iterations: Array.from({ length: 40 }, () => ({ ...bundle.iterations[0]!, action: 'y'.repeat(400), observation: 'z'.repeat(400) })) }
    expect(renderBundle(huge, 20_000).length).toBeLessThanOrEqual(20_000)
    expect(renderBundle(huge).length).toBeLessThanOrEqual(BUNDLE_MAX_CHARS)
  })

  it('refuses a project of fewer than 3 work items unless forced; an unknown project or another tenant\'s is refused', async () => {
    const small = await worksite(database().db, 1)
    const refused = await runDebrief(deps(), { project: small.project.id, actor: 'tests' }).catch(error => error)
    expect(refused).toBeInstanceOf(DebriefError)
    expect(refused).toMatchObject({ code: 'roi_guard', details: { workItems: 2, minimum: 3 } })
    expect(inboxNotes()).toEqual([])
    const forced = await runDebrief(deps(), { project: small.project.id, force: true, dryRun: true, actor: 'tests' })
    expect(forced).toMatchObject({ forced: true, dryRun: true, notePath: null, workItems: 2 })
    expect(existsSync(agentLog)).toBe(false) // a dry run calls no model
    await expect(runDebrief(deps(), { project: '00000000-0000-4000-8000-000000000000', actor: 'tests' })).rejects.toMatchObject({ code: 'project_not_found' })
    await expect(runDebrief(deps(), { project: small.project.id, tenant: 'someone-else', actor: 'tests' })).rejects.toMatchObject({ code: 'tenant_mismatch' })
  })

  it('the agent CLI writes it in read-only mode, in an empty folder; the note is a draft in the inbox, never the permanent zone', async () => {
    const site = await project(2)
    const report = await runDebrief(deps(), { project: site.project.id, actor: 'op@studio.test' })
    expect(report).toMatchObject({ via: 'agent-cli', provider: 'anthropic', workItems: 3, forced: false })
    expect(report.notePath).toMatch(/^inbox\/debriefs\/2026-11-30-site-[a-z0-9]+-[0-9a-f]{8}\.md$/)
    const run = JSON.parse(readFileSync(agentLog, 'utf8').trim().split('\n')[0]!) as { args: string[], cwd: string, env: string[] }
    expect(run.args).toContain('--tools=')
    expect(run.cwd).toMatch(/synedre-debrief-/)
    expect(existsSync(run.cwd)).toBe(false) // removed after the run
    expect(run.env.filter(name => name.endsWith('_API_KEY'))).toEqual([])
    const note = readFileSync(join(folders.vaultDir, report.notePath!), 'utf8')
    expect(note).toMatch(/^---\n/)
    expect(note).toContain('status: draft')
    expect(note).toContain('## 5. One tool to create')
    expect(note).toContain('(agent-cli)')
    expect(model.requests()).toHaveLength(0)
    expect(ledger).toMatchObject([{ via: 'agent-cli', feature: 'learning_debrief', outcome: 'ok', tokensIn: 900, tokensOut: 300 }])
    expect(permanent()).toEqual([])
    // A second debrief the same day is its own draft: the first one is not overwritten.
    const again = await runDebrief(deps(), { project: site.project.id, actor: 'op@studio.test' })
    expect(again.notePath).toBe(report.notePath!.replace(/\.md$/, '-2.md'))
    expect(readFileSync(join(folders.vaultDir, report.notePath!), 'utf8')).toBe(note)
  })

  it('two failed agent CLI attempts (no result object), then the provider: an invalid answer, then a good one', async () => {
    const site = await project(2)
    model.answer('{"not": "a debrief"}', GOOD)
    const report = await runDebrief(deps({ mode: 'garbage' }), { project: site.project.id, actor: 'tests' })
    expect(report.via).toBe('facade')
    expect(report.attempts.map(a => `${a.via}:${a.ok}`)).toEqual(['agent-cli:false', 'agent-cli:false', 'facade:false', 'facade:true'])
    expect(sleeps).toEqual([AGENT_CLI_PAUSE_MS]) // the pause between the CLI's attempts; the loopback provider skips the backoff
    expect(ledger.map(e => e.outcome)).toEqual(['failed', 'failed'])
    expect(model.system()).toContain('## 3. Top 3 patterns to standardise')
    expect(model.prompt()).toContain('Deploy without smoke test')
    expect(readFileSync(join(folders.vaultDir, report.notePath!), 'utf8')).toContain('scripted 5')
  })

  it('the binary absent goes straight to the provider; a provider that is down, or echoes its prompt, writes nothing', async () => {
    const site = await project(2)
    const before = inboxNotes()
    model.server.respond(() => ({ status: 503, body: { message: 'down' } }))
    const down = await runDebrief(deps({ bin: '/nonexistent/claude' }), { project: site.project.id, actor: 'tests' }).catch(error => error)
    expect(down).toMatchObject({ code: 'model_unavailable' })
    expect((down as DebriefError).details.attempts).toMatchObject([{ via: 'agent-cli', ok: false, error: 'ENOENT' }, { via: 'facade', ok: false }, { via: 'facade', ok: false }, { via: 'facade', ok: false }])
    expect(inboxNotes()).toEqual(before)
    model.reset()
    model.byDefault(prompt => prompt)
    const echoed = await runDebrief(deps({ mode: 'sections' }), { project: site.project.id, actor: 'tests' }).catch(error => error)
    expect(echoed).toMatchObject({ code: 'model_unavailable' })
    expect(model.requests()).toHaveLength(3)
    expect(inboxNotes()).toEqual(before)
    expect(permanent()).toEqual([])
  })

  it('a remote provider gets the exponential backoff between its attempts', async () => {
    const site = await project(2)
    const d = deps({ bin: '/nonexistent/claude' })
    // Same loopback server, but the environment no longer says so: a remote provider for the plan.
    d.model.env = { ...d.model.env, OPENAI_API_KEY: 'remote-key' }
    model.byDefault(() => 'no sections at all')
    await expect(runDebrief(d, { project: site.project.id, actor: 'tests', via: 'facade' })).rejects.toMatchObject({ code: 'model_unavailable' })
    expect(sleeps).toEqual([FACADE_BACKOFF_MS, FACADE_BACKOFF_MS * 2])
  })
})
