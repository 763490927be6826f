// The spawn engine on both databases, in process with real parts: pg-boss on the test
// database, the stand-in agent through the pseudo-terminal wrapper, the mail facade with a
// capturing transport, Debian chromium against the local QA fixture site.
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { aiConsumption } from '#db/schema/ai'
import { atlasAudit, atlasInbox, atlasReplyDrafts } from '#db/schema/atlas'
import { atlasSpawnEvents, atlasSpawnEventsBase, atlasSpawns } from '#db/schema/atlas-spawn'
import { agents, agentsActivity } from '#db/schema/agents'
import { hubAudit } from '#db/schema/hub'
import { seedAgents } from '#layers/agents/core/seed'
import { acquireLease, releaseLease } from '#layers/health/core/leases'
import { recordAtlasAudit } from '#layers/atlas/core/audit'
import { MailRefusedError } from '#layers/atlas/core/mail/mailer'
import { messageLeaseName } from '#layers/spawn/core/leases'
import { DISABLED_MESSAGE, runOrchestratorCycle } from '#layers/spawn/core/orchestrator'
import { launchChromium, runQa } from '#layers/spawn/core/qa'
import { runSpawnWorker } from '#layers/spawn/core/worker'
import { listSpawns, spawnEngineStatus, spawnEvents } from '#layers/spawn/core/queries'
import { draftReply, markReplySent, ReplyDraftError, updateReplyDraft, writeReplyDraft } from '#layers/spawn/core/reply-draft'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { startEngine, TEAM, type Engine } from '../fixtures/engine'
import { startQaSite, type QaSite } from '../fixtures/qa-site'
import { actions, audits, classifiedMessage, createTenant, inbox, spawnsOf } from '../fixtures/seed'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

// Every spawn checks out a repository and starts a sandbox: on a shared 2-core machine a test
// with a few spawns needs more than the integration suite's 30 s.
vi.setConfig({ testTimeout: 120_000 })

describeOnBothDatabases('Atlas spawn engine', (database) => {
  let engine: Engine
  let site: QaSite
  let model: ScriptedModel

  beforeAll(async () => {
    await seedAgents(database().db)
    // Plain bubblewrap here (a real sandbox, started faster than srt's proxies): these tests
    // are about the engine; hostile.test.ts and claude-cli.test.ts exercise srt itself.
    engine = await startEngine(database().db, database().url, { SPAWN_SANDBOX: 'bwrap' })
    site = await startQaSite()
    model = await startScriptedModel()
  })
  afterAll(async () => {
    await engine?.close()
    await site?.close()
    await model?.close()
  })

  const variant = (name: string, extra: Record<string, string> = {}) => ({ env: { ...engine.env, STAND_IN_VARIANT: name, ...extra } })
  /**
   * A registry agent's counters and its activity trail for one message: the orchestrator (a
   * `run` is its trade, and a lost spawn counts for it), or the agent a `question` is routed to.
   */
  async function orchestrator(messageId: number, codename = 'orchestrator') {
    const { db } = database()
    const [counters] = await db
      .select({ spawnCount: agents.spawnCount, errorCount: agents.errorCount })
      .from(agents)
      .where(eq(agents.codename, codename))
    const trail = await db
      .select({ kind: agentsActivity.kind, ref: agentsActivity.ref, summary: agentsActivity.summary })
      .from(agentsActivity)
      .where(sql`${agentsActivity.agent} = ${codename} and ${agentsActivity.ref} like ${`atlas#${messageId}/%`}`)
    return { ...counters!, trail }
  }

  /** Runs whatever earlier tests left spawnable, so each test starts from a quiet inbox. */
  async function settle() {
    for (let i = 0; i < 6; i++) {
      const report = await engine.cycle()
      await engine.drain(variant('fast'))
      if (report.queued.length === 0) return
    }
  }
  beforeEach(settle, 120_000)

  it('does nothing with the kill switch on, and says so', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    const off = { ...engine.config, disabled: true }
    const logs: string[] = []
    const cycle = await runOrchestratorCycle({ ...spawnPorts, db, queue: engine.queue, config: off, actor: 'atlas-spawn', host: 'h', pid: 1, log: l => void logs.push(l) })
    expect(cycle).toMatchObject({ disabled: true, queued: [], candidates: [] })
    expect(logs.join('\n')).toContain(DISABLED_MESSAGE)
    expect((await inbox(db, id)).status).toBe('classified')
    const work = await runSpawnWorker({ ...spawnPorts, db, queue: engine.queue, config: off, env: engine.env, mail: engine.mailer, host: 'h', pid: 1, actor: 'w', log: l => void logs.push(l) })
    expect(work.processed).toBe(0)
    expect(logs.join('\n')).toContain('ATLAS_SPAWN_DISABLED=1')
    expect(await spawnEngineStatus(db, { ATLAS_SPAWN_DISABLED: '1' })).toMatchObject({ disabled: true, note: expect.stringContaining('ATLAS_SPAWN_DISABLED=1') })
    expect(await spawnEngineStatus(db, {})).toMatchObject({ disabled: false, note: null, sandbox: 'srt', sandboxWarning: null })
    // An unconfined agent is shown in the hub as a warning.
    expect(await spawnEngineStatus(db, { SPAWN_SANDBOX: 'none' })).toMatchObject({ sandbox: 'none', sandboxWarning: expect.stringContaining('run unconfined') })
    expect(await spawnsOf(db, id)).toEqual([])
  })

  it('picks classified run / chantier / question / negociation messages without a recent spawn audit, at most 3 per cycle', async () => {
    const { db } = database()
    const intents = ['noise', 'conseil', 'run', 'chantier', 'question', 'negociation'] as const
    const ids = {} as Record<typeof intents[number], number>
    for (const intent of intents) ids[intent] = await classifiedMessage(db, { intent })
    const received = await classifiedMessage(db, { intent: 'run', status: 'received' })
    // Held back: any spawn audit younger than an hour.
    const recent: number[] = []
    for (const action of ['spawn_started', 'spawn_completed', 'spawn_failed'] as const) {
      const id = await classifiedMessage(db, { intent: 'run' })
      await recordAtlasAudit(db, { messageId: id, action, actor: 'test', details: {} })
      recent.push(id)
    }
    // Not held back: an audit older than the hour, and the audits of a spawn lost with its
    // worker — unless the message already lost three spawns within the hour.
    const old = await classifiedMessage(db, { intent: 'run' })
    await db.insert(atlasAudit).values({ messageId: old, action: 'spawn_failed', actor: 'test', details: {}, at: sql`now() - interval '61 minutes'` })
    async function lostSpawns(messageId: number, count: number) {
      for (let i = 0; i < count; i++) {
        const [lost] = await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'lost', outcome: 'worker_lost', endedAt: new Date(), queuedBy: 'test' }).returning({ id: atlasSpawns.id })
        await recordAtlasAudit(db, { messageId, action: 'spawn_started', actor: 'test', details: { spawnId: lost!.id } })
        await recordAtlasAudit(db, { messageId, action: 'spawn_failed', actor: 'test', details: { spawnId: lost!.id, reason: 'worker_lost' } })
      }
    }
    const lostOnce = await classifiedMessage(db, { intent: 'run' })
    await lostSpawns(lostOnce, 1)
    const lostThrice = await classifiedMessage(db, { intent: 'run' })
    await lostSpawns(lostThrice, 3)
    const dry = await engine.cycle({ dryRun: true })
    expect(dry.candidates).toEqual([ids.run, ids.chantier, ids.question])
    const first = await engine.cycle()
    expect(first.queued.map(q => q.messageId)).toEqual([ids.run, ids.chantier, ids.question])
    expect(first.queued.every(q => q.jobId)).toBe(true)
    for (const id of [ids.run, ids.chantier, ids.question]) expect((await inbox(db, id)).status).toBe('spawn_queued')
    const second = await engine.cycle()
    expect(second.queued.map(q => q.messageId)).toEqual([ids.negociation, old, lostOnce])
    expect((await engine.cycle()).queued).toEqual([])
    for (const id of [ids.noise, ids.conseil, received, ...recent]) expect((await spawnsOf(db, id)).length).toBe(0)
    expect((await spawnsOf(db, lostThrice)).map(s => s.status)).toEqual(['lost', 'lost', 'lost'])
    // Tidy: run them (intent-correction avoids the chantier deploy).
    await engine.drain(variant('intent-correction'))
  }, 120_000)

  it('skips a message whose lease is held, with spawn_skipped_lock_held', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    const lease = messageLeaseName(id)
    await acquireLease(db, lease, { holder: 'manual-run', host: 'other-host', pid: 4242 }, 60_000)
    try {
      const report = await engine.cycle()
      expect(report.skippedLockHeld).toContain(id)
      expect((await inbox(db, id)).status).toBe('classified')
      const [skip] = (await audits(db, id)).filter(a => a.action === 'spawn_skipped_lock_held')
      expect(skip?.details).toMatchObject({ lease, heldBy: { host: 'other-host', pid: 4242 } })
    }
    finally {
      await releaseLease(db, lease, 'manual-run')
    }
  })

  it('runs a question end to end: events stored live through the view, ledger, audit, summary to the team, agent draft kept', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    const sentBefore = engine.sent.length
    const countersBefore = await orchestrator(id, 'analyse-besoin')
    const work = await engine.drain(variant('success'))
    expect(work.outcomes.find(o => o.messageId === id)?.outcome).toBe('actioned')
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned', intent: 'question' })
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_completed', 'actioned'])
    const [spawn] = await spawnsOf(db, id)
    expect(spawn).toMatchObject({ status: 'succeeded', outcome: 'actioned', iteration: 1, resultSource: 'file', costUsd: 0.0123, tokensIn: 6500, tokensOut: 450, numTurns: 3, wrapperExitCode: 0 })
    expect(spawn!.agentPid).toBeGreaterThan(0)
    expect(spawn!.prompt).toContain('Le formulaire de contact renvoie une erreur')
    // Live persistence: one row per event, sub-typed, in order, through the view onto the base table.
    const events = await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)).orderBy(atlasSpawnEvents.seq)
    expect(events.length).toBe(spawn!.eventCount)
    expect(events.map(e => e.seq)).toEqual(events.map((_e, i) => i + 1))
    const kinds = new Set(events.map(e => e.eventType))
    for (const kind of ['wrapper', 'system', 'stream', 'assistant', 'tool_result', 'result']) expect(kinds).toContain(kind)
    expect(events.find(e => e.eventType === 'tool_result')?.toolName).toBe('Bash')
    expect(events.find(e => e.subtype === 'system/init')?.payload).toMatchObject({ type: 'system', subtype: 'init' })
    const base = await db.select({ n: sql<number>`count(*)::int` }).from(atlasSpawnEventsBase).where(eq(atlasSpawnEventsBase.spawnId, spawn!.id))
    expect(base[0]!.n).toBe(events.length)
    expect((await spawnEvents(db, spawn!.id, { after: events.length - 2 })).map(e => [e.seq, e.eventType])).toEqual([[events.length - 1, 'result'], [events.length, 'wrapper']])
    // The log file holds the same stream.
    expect(readFileSync(spawn!.logPath!, 'utf8').trim().split('\n').length).toBe(events.length)
    // Cost, tokens and duration in the AI ledger.
    const ledger = await db.select().from(aiConsumption).where(eq(aiConsumption.callId, spawn!.id))
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ kind: 'agent', provider: 'anthropic', via: 'agent-cli', feature: 'atlas_spawn', model: 'claude-sonnet-4-6', tokensIn: 6500, tokensOut: 450, durationMs: 4321, outcome: 'ok' })
    expect(Number(ledger[0]!.costUsd)).toBeCloseTo(0.0123)
    // The summary goes to the team only.
    const mails = engine.sent.slice(sentBefore)
    expect(mails).toHaveLength(1)
    expect(mails[0]).toMatchObject({ to: TEAM, subject: expect.stringContaining('[Atlas]') })
    expect(mails[0]!.text).toContain('The contact form validated the phone field twice')
    const drafts = await db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, id))
    expect(drafts).toMatchObject([{ body: `Bonjour, le formulaire de contact est corrigé.\n\n${engine.config.teamSignature}`, status: 'draft', createdBy: 'atlas-spawn-worker' }])
    expect((await listSpawns(db, id))[0]).toMatchObject({ status: 'succeeded', lastEventType: 'node_pty_exit', silentForMs: null, possiblyHung: false })
    // The agents registry counts the spawn for the agent a question is routed to, with a trail back to it.
    expect(spawn!.agentCodename).toBe('analyse-besoin')
    const counters = await orchestrator(id, 'analyse-besoin')
    expect(counters).toMatchObject({ spawnCount: countersBefore.spawnCount + 1, errorCount: countersBefore.errorCount })
    expect(counters.trail).toEqual([{ kind: 'spawn_completed', ref: `atlas#${id}/spawn/${spawn!.id}`, summary: `message #${id}, spawn 1: status ok` }])
  })

  it('applies a downgrade of chantier to question from the contract: no deploy, no QA, actioned', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'chantier' })
    await engine.cycle()
    await engine.drain({ ...variant('intent-correction'), config: { ...engine.config, deployCommand: 'exit 97' } })
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned', intent: 'question' })
    const [spawn] = await spawnsOf(db, id)
    expect(spawn!.deploy).toBeNull()
    const completed = (await audits(db, id)).find(a => a.action === 'spawn_completed')
    expect(completed?.details).toMatchObject({ intentCorrection: { intent: 'question' } })
  })

  it('refuses a "correction" up to chantier: the intent stays, the refusal is recorded', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await engine.cycle()
    await engine.drain(variant('bad-correction'))
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned', intent: 'run' })
    const completed = (await audits(db, id)).find(a => a.action === 'spawn_completed')
    expect(completed?.details).toMatchObject({ intentCorrection: null, refusedCorrection: { intent: 'chantier' } })
  })

  it.each([
    ['crash', {}, /no result file.*exited with code 3/],
    ['no-result', {}, /no result file: the agent did not write/],
  ])('fails the spawn with the reason shown when the agent %s', async (name, extra, reason) => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await engine.cycle()
    const before = engine.sent.length
    const countersBefore = await orchestrator(id)
    await engine.drain(variant(name, extra))
    const row = await inbox(db, id)
    expect(row).toMatchObject({ status: 'spawn_failed', needsHuman: true })
    expect(row.statusReason).toMatch(reason)
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_failed'])
    const [spawn] = await spawnsOf(db, id)
    expect(spawn).toMatchObject({ status: 'failed', outcome: 'spawn_failed' })
    expect(spawn!.reason).toMatch(reason)
    expect(engine.sent.slice(before)).toMatchObject([{ to: TEAM, subject: expect.stringContaining('Spawn failed') }])
    const counters = await orchestrator(id)
    expect(counters).toMatchObject({ spawnCount: countersBefore.spawnCount + 1, errorCount: countersBefore.errorCount + 1 })
    expect(counters.trail).toMatchObject([{ kind: 'spawn_failed', ref: `atlas#${id}/spawn/${spawn!.id}`, summary: expect.stringMatching(reason) }])
  })

  it('fails the spawn of an agent that ended in error, keeping its valid result file only as a checkpoint', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await engine.cycle()
    await engine.drain(variant('error-result'))
    const row = await inbox(db, id)
    expect(row).toMatchObject({ status: 'spawn_failed', needsHuman: true })
    expect(row.statusReason).toBe('the agent ended in error (the agent exited with code 1): API Error: 529 Overloaded; the last checkpoint was salvaged')
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_failed'])
    expect((await spawnsOf(db, id))[0]).toMatchObject({ status: 'failed', resultSource: 'checkpoint', result: { status: 'failed', summary: 'The API kept failing.' }, wrapperExitCode: 1 })
    // Nothing to tell the client about a run that failed.
    await expect(draftReply({ db, ai: model.facade(db), signature: 'L\'équipe Synedre' }, { messageId: id, actor: 'alex@studio.example' })).rejects.toMatchObject({ code: 'no_finished_run', statusCode: 409 })
  })

  it('finishes the spawn even when the agents registry cannot count it, and logs why', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    await engine.drain({ ...variant('fast'), onSpawnFinished: async () => {
      throw new Error('the registry is unreachable')
    } })
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    expect(engine.logs.some(line => line.includes(`atlas#${id}/spawn/`) && line.includes('the agents registry was not updated (the registry is unreachable)'))).toBe(true)
  })

  it('salvages the early checkpoint of an agent killed at the timeout, with its whole group', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await engine.cycle()
    const before = engine.sent.length
    await engine.drain({ ...variant('checkpoint-hang'), config: { ...engine.config, timeoutMs: 10_000 } })
    const row = await inbox(db, id)
    expect(row.status).toBe('spawn_failed')
    expect(row.statusReason).toMatch(/stopped at the timeout \(10 s, SPAWN_TIMEOUT_SEC\); the last checkpoint was salvaged/)
    const [spawn] = await spawnsOf(db, id)
    expect(spawn).toMatchObject({ status: 'failed', resultSource: 'checkpoint', result: { status: 'in_progress' } })
    const failed = (await audits(db, id)).find(a => a.action === 'spawn_failed')
    // Killed by a signal: the audit says which, and no exit code (the terminal reports 0).
    expect(failed?.details).toMatchObject({ exitCode: null, signal: expect.stringMatching(/^SIG(TERM|KILL)$/) })
    expect(failed?.details).toMatchObject({ timedOut: true, salvagedCheckpoint: { status: 'in_progress', summary: expect.stringContaining('Partial diagnostic') } })
    const mail = engine.sent.slice(before)[0]!
    expect(mail.text).toContain('Last checkpoint salvaged')
    expect(mail.text).toContain('Partial diagnostic')
    const { spawnProcesses } = await import('#layers/spawn/core/processes')
    expect(spawnProcesses({ spawnId: spawn!.id })).toEqual([])
  })

  it('kills the agent\'s whole group when the job expires before the agent ends', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await engine.cycle()
    await engine.drain({ ...variant('checkpoint-hang'), config: { ...engine.config, timeoutMs: 600_000, jobExpirySec: 20 } })
    const row = await inbox(db, id)
    expect(row.status).toBe('spawn_failed')
    expect(row.statusReason).toMatch(/the agent was stopped: the job expired \(20 s\); the last checkpoint was salvaged/)
    const [spawn] = await spawnsOf(db, id)
    const { isAlive, spawnProcesses } = await import('#layers/spawn/core/processes')
    expect(isAlive(spawn!.agentPid!)).toBe(false)
    // The helper that left the group lived in the sandbox's PID namespace: gone with it.
    expect(spawnProcesses({ spawnId: spawn!.id })).toEqual([])
  })

  it('runs the QA loop: broken routes → re-spawn with the errors in its prompt → fixed → actioned', async () => {
    const { db } = database()
    const tenant = await createTenant(db, { preprodUrl: site.url })
    const id = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id })
    await engine.cycle()
    // The deploy runs in the spawn's checkout, where the fixing agent wrote `fixed`.
    const deployCommand = `test -f fixed && cp fixed "${site.dir}/fixed"; echo deployed {tenant}`
    const loop = { ...variant('chantier', { STAND_IN_ROUTES: '/healthy,/broken,/console' }), config: { ...engine.config, deployCommand } }
    await engine.drain(loop)
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_completed', 'deployed', 'qa_failed', 'respawn', 'spawn_started', 'spawn_completed', 'deployed', 'qa_passed', 'actioned'])
    const [first, second] = await spawnsOf(db, id)
    expect(first).toMatchObject({ iteration: 1, status: 'succeeded', outcome: 'qa_failed', deploy: { ok: true, outputTail: `deployed ${tenant.slug}\n` } })
    const errors = (first!.qa as { errors: Array<{ kind: string, route: string, message: string }> }).errors
    expect(errors).toEqual(expect.arrayContaining([
      { kind: 'application', route: '/broken', message: expect.stringContaining('HTTP 500') },
      { kind: 'browser', route: '/console', message: expect.stringContaining('form validator crashed') },
      { kind: 'browser', route: '/console', message: expect.stringMatching(/page error: .*null/) },
    ]))
    expect(errors.some(e => e.route === '/healthy')).toBe(false)
    expect(second).toMatchObject({ iteration: 2, previousSpawnId: first!.id, status: 'succeeded', outcome: 'actioned', qa: { passed: true } })
    expect(second!.prompt).toContain('QA errors found')
    expect(second!.prompt).toContain('[application] /broken: HTTP 500')
    expect(second!.prompt).toContain('form validator crashed')
    expect(second!.prompt).toContain('b0b0000 feat: the new page')
  }, 120_000)

  it('checks the home page when a chantier\'s contract lists no route, and reports an HTTP error as an application error', async () => {
    const launch = () => launchChromium(engine.config.chromiumPath)
    const home = await runQa([], { baseUrl: site.url, navigationTimeoutMs: 15_000, settleMs: 0, launch })
    expect(home).toMatchObject({ passed: true, note: 'the result contract lists no route: the home page was checked', routes: [{ route: '/', status: 200, errors: [] }] })
    const missing = await runQa(['/not-there'], { baseUrl: site.url, navigationTimeoutMs: 15_000, settleMs: 0, launch })
    expect(missing.passed).toBe(false)
    expect(missing.errors[0]).toMatchObject({ kind: 'application', route: '/not-there', message: expect.stringMatching(/^HTTP 404 at /) })
  })

  it('clones the client\'s branch and runs the client\'s named deploy command; a name the environment no longer defines escalates, nothing run', async () => {
    const { db } = database()
    // The client's own repository: its branch `preprod` holds a file its default branch has not.
    const repository = join(engine.base, `client-${randomUUID().slice(0, 8)}`)
    const git = (...args: string[]) => execFileSync('git', ['-C', repository, '-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args])
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', repository])
    writeFileSync(join(repository, 'README.md'), '# main\n')
    git('add', '-A')
    git('commit', '--quiet', '-m', 'init')
    git('checkout', '--quiet', '-b', 'preprod')
    writeFileSync(join(repository, 'BRANCH.txt'), 'the preprod branch\n')
    git('add', '-A')
    git('commit', '--quiet', '-m', 'preprod')
    git('checkout', '--quiet', 'main')
    const config = { ...engine.config, deployCommand: 'echo the default; exit 3', deployCommands: { 'client-site': 'cat BRANCH.txt; echo named {tenant}', 'other-site': 'echo other; exit 4' } }
    const tenant = await createTenant(db, { preprodUrl: site.url, repository, branch: 'preprod', deploy: 'client-site' })
    const id = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id })
    const stale = await createTenant(db, { preprodUrl: site.url, deploy: 'removed-since' })
    const staleId = await classifiedMessage(db, { intent: 'chantier', tenantId: stale.id })
    await engine.cycle()
    await engine.drain({ ...variant('chantier', { STAND_IN_ROUTES: '/healthy' }), config })
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    const [spawn] = await spawnsOf(db, id)
    expect(spawn!.deploy).toMatchObject({ ok: true, command: `cat BRANCH.txt; echo named '${tenant.slug}'`, outputTail: `the preprod branch\nnamed ${tenant.slug}\n` })
    expect((await audits(db, id)).find(a => a.action === 'deployed')?.details).toMatchObject({ ok: true, deploy: 'client-site' })
    // The spawn's embedding calls (its briefing's recall, its lesson's indexing) are its tenant's in the ledger.
    expect(await db.select({ tenant: aiConsumption.tenant }).from(aiConsumption).where(sql`${aiConsumption.feature} = 'memory_sync' and ${aiConsumption.tenant} = ${tenant.slug}`)).not.toEqual([])
    expect(await inbox(db, staleId)).toMatchObject({ status: 'escalated', needsHuman: true, statusReason: expect.stringContaining('the client\'s deploy "removed-since" is not defined (defined: client-site, other-site)') })
    expect(await actions(db, staleId)).not.toContain('deployed')
  }, 180_000)

  it('escalates after 3 iterations when QA keeps failing', async () => {
    const { db } = database()
    const tenant = await createTenant(db, { preprodUrl: site.url })
    const id = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id })
    await engine.cycle()
    const before = engine.sent.length
    await engine.drain({ ...variant('chantier', { STAND_IN_ROUTES: '/not-there', STAND_IN_NEVER_FIX: '1' }), config: { ...engine.config, deployCommand: 'true' } })
    expect(await inbox(db, id)).toMatchObject({ status: 'escalated', needsHuman: true })
    expect(await actions(db, id)).toEqual([
      'spawn_started', 'spawn_completed', 'deployed', 'qa_failed', 'respawn',
      'spawn_started', 'spawn_completed', 'deployed', 'qa_failed', 'respawn',
      'spawn_started', 'spawn_completed', 'deployed', 'qa_failed', 'escalated',
    ])
    expect((await spawnsOf(db, id)).map(s => [s.iteration, s.outcome])).toEqual([[1, 'qa_failed'], [2, 'qa_failed'], [3, 'escalated']])
    const mails = engine.sent.slice(before)
    expect(mails).toMatchObject([{ to: TEAM, subject: expect.stringContaining('Escalation') }])
    expect(mails[0]!.text).toContain('HTTP 404')
    // No draft says the request was handled; the agent's text stays in the history.
    expect(await db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, id))).toEqual([])
    expect((await audits(db, id)).find(a => a.action === 'escalated')?.details).toMatchObject({ replyDraftDiscarded: 'Bonjour, le formulaire de contact est corrigé.' })
    // Deploy and QA each left their audit, QA with its findings.
    expect((await audits(db, id)).find(a => a.action === 'qa_failed')?.details).toMatchObject({ findings: [expect.objectContaining({ kind: 'http_status', severity: 'error' })] })
  }, 180_000)

  it('re-spawns a message whose worker was lost, and hands it to a person (mailing the team) after the third loss within the hour', async () => {
    const { db } = database()
    await settle()
    /** A spawn left running by a worker that died: no live message lease. */
    async function orphan(messageId: number) {
      await db.update(atlasInbox).set({ status: 'spawning' }).where(eq(atlasInbox.messageId, messageId))
      await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'running', queuedBy: 'test', host: 'gone-host', pid: 4242, claimedAt: new Date() })
    }
    const once = await classifiedMessage(db, { intent: 'run', subject: 'Lost once' })
    await orphan(once)
    const thrice = await classifiedMessage(db, { intent: 'run', subject: 'Lost thrice' })
    for (let i = 0; i < 2; i++) await db.insert(atlasSpawns).values({ messageId: thrice, iteration: 1, status: 'lost', outcome: 'worker_lost', queuedBy: 'test', endedAt: new Date() })
    await orphan(thrice)
    const before = engine.sent.length
    const countersBefore = await orchestrator(thrice)
    const report = await engine.cycle()
    expect(report.recovered.lost.sort()).toEqual([once, thrice].sort())
    // Lost once: back to classified and queued again at once.
    expect(report.queued.map(q => q.messageId)).toEqual([once])
    // Lost a third time within the hour: a person decides; the team is told; the registry counts a failure.
    expect(await inbox(db, thrice)).toMatchObject({ status: 'spawn_failed', needsHuman: true, statusReason: expect.stringContaining('lost 3 times within 60 min') })
    const lostAudit = (await audits(db, thrice)).find(a => a.action === 'spawn_failed')
    expect(lostAudit?.details).toMatchObject({ reason: 'worker_lost', lostWithinWindow: 3, next: 'needs a person: not spawned again automatically' })
    expect(engine.sent.slice(before)).toMatchObject([{ to: TEAM, subject: expect.stringContaining('Escalation — Lost thrice') }])
    expect((await orchestrator(thrice)).errorCount).toBe(countersBefore.errorCount + 2)
    expect((await engine.cycle()).queued.map(q => q.messageId)).not.toContain(thrice)
    await engine.drain(variant('fast'))
  })

  it('keeps to the global and the per-host caps with several workers on several hosts', async () => {
    const { db } = database()
    await settle()
    const ids: number[] = []
    for (let i = 0; i < 4; i++) ids.push(await classifiedMessage(db, { intent: 'question', subject: `Caps ${i}` }))
    for (let i = 0; i < 2; i++) await engine.cycle()
    const config = { ...engine.config, globalConcurrency: 2, hostConcurrency: 1 }
    const env = { ...engine.env, STAND_IN_VARIANT: 'success', STAND_IN_PACE_MS: '40', STAND_IN_LINGER_MS: '0' }
    const stop = new AbortController()
    // Three workers: two on host-a (one slot there), one on host-b; two slots in all. They are
    // this process (a lease held by a pid that does not exist on this host would be taken).
    const workers = ['host-a', 'host-a', 'host-b'].map(host => runSpawnWorker({
      ...spawnPorts,
      db, queue: engine.queue, config, env, mail: engine.mailer, host, pid: process.pid, actor: 'atlas-spawn-worker', log: () => {}, signal: stop.signal,
    }, { mode: 'forever' }))
    let most = 0
    let mostOnOneHost = 0
    try {
      await expect.poll(async () => {
        const running = await db.select({ host: atlasSpawns.host }).from(atlasSpawns).where(sql`${atlasSpawns.status} = 'running' and ${atlasSpawns.messageId} in ${ids}`)
        most = Math.max(most, running.length)
        for (const host of ['host-a', 'host-b']) mostOnOneHost = Math.max(mostOnOneHost, running.filter(r => r.host === host).length)
        const done = await db.select({ status: atlasSpawns.status }).from(atlasSpawns).where(sql`${atlasSpawns.messageId} in ${ids} and ${atlasSpawns.status} = 'succeeded'`)
        return done.length
      }, { timeout: 90_000, interval: 50 }).toBe(4)
    }
    finally {
      stop.abort(new Error('test over'))
      await Promise.all(workers)
    }
    expect(most).toBe(2)
    expect(mostOnOneHost).toBe(1)
    const hosts = await db.select({ host: atlasSpawns.host }).from(atlasSpawns).where(sql`${atlasSpawns.messageId} in ${ids}`)
    expect(new Set(hosts.map(h => h.host))).toEqual(new Set(['host-a', 'host-b']))
  }, 120_000)

  it('refuses an external recipient and audits it: the AI never writes to a client', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    await expect(engine.mailer.send({ to: ['team@studio.example', 'claire@client.example'], subject: 'Re: your request', text: 'hello' }, { actor: 'atlas-spawn-worker', messageId: id }))
      .rejects.toBeInstanceOf(MailRefusedError)
    const refused = (await audits(db, id)).filter(a => a.action === 'mail_refused_external')
    expect(refused[0]?.details).toMatchObject({ refused: ['claire@client.example'] })
    // Everything the engine sent in this suite went to the team and nobody else.
    expect(engine.sent.every(mail => JSON.stringify(mail.to) === JSON.stringify(TEAM))).toBe(true)
  })

  it('drafts the client reply through the facade (mistral-small-latest), signed, editable, and records who sent it', async () => {
    const { db } = database()
    const none = await classifiedMessage(db, { intent: 'question' })
    const ai = model.facade(db)
    await expect(draftReply({ db, ai, signature: 'L\'équipe Synedre' }, { messageId: none, actor: 'alex@studio.example' })).rejects.toMatchObject({ code: 'no_finished_run', statusCode: 409 })
    await expect(draftReply({ db, ai, signature: 'L\'équipe Synedre' }, { messageId: 99_999_999, actor: 'alex@studio.example' })).rejects.toBeInstanceOf(ReplyDraftError)
    await expect(writeReplyDraft(db, { messageId: 99_999_999, body: 'Madame,', actor: 'alex@studio.example' })).rejects.toMatchObject({ code: 'not_found', statusCode: 404 })
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    await engine.drain(variant('fast'))
    model.reset()
    model.answer('Madame, nous avons corrigé le formulaire de contact. La validation du téléphone se faisait deux fois. Vous pouvez le vérifier dès maintenant.')
    const result = await draftReply({ db, ai, signature: 'L\'équipe Synedre' }, { messageId: id, actor: 'alex@studio.example' })
    await ai.flush()
    expect(model.requests()[0]!.body).toMatchObject({ model: 'mistral-small-latest' })
    expect(model.system()).toMatch(/formal register/)
    expect(model.system()).toMatch(/3 to 6 sentences/)
    expect(model.prompt()).toContain('The contact form validated the phone field twice')
    expect(result).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest', sentences: 3 })
    expect(result.draft.body.endsWith('L\'équipe Synedre')).toBe(true)
    const ledger = await db.select().from(aiConsumption).where(eq(aiConsumption.feature, 'atlas_reply_draft'))
    expect(ledger.at(-1)).toMatchObject({ provider: 'mistral', outcome: 'ok', actor: 'alex@studio.example' })
    const edited = await updateReplyDraft(db, { id: result.draft.id, body: 'Madame, corrigé. Merci.', actor: 'alex@studio.example' })
    expect(edited.body).toBe('Madame, corrigé. Merci.')
    const sent = await markReplySent(db, { id: result.draft.id, actor: 'sam@studio.example' })
    expect(sent).toMatchObject({ status: 'sent', sentBy: 'sam@studio.example' })
    await expect(updateReplyDraft(db, { id: result.draft.id, body: 'too late', actor: 'x' })).rejects.toMatchObject({ code: 'not_editable' })
    await expect(markReplySent(db, { id: result.draft.id, actor: 'x' })).rejects.toMatchObject({ code: 'not_editable' })
    const trail = await db.select().from(hubAudit).where(eq(hubAudit.target, `atlas_message:${id}`)).orderBy(hubAudit.id)
    // The agent's own draft was superseded by the new one, and kept.
    expect(trail.map(a => [a.action, a.actor])).toEqual([
      ['atlas_reply_draft_discarded', 'alex@studio.example'],
      ['atlas_reply_draft_generated', 'alex@studio.example'],
      ['atlas_reply_draft_edited', 'alex@studio.example'],
      ['atlas_reply_sent', 'sam@studio.example'],
    ])
    const drafts = await db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, id)).orderBy(atlasReplyDrafts.id)
    expect(drafts.map(d => [d.createdBy, d.status])).toEqual([['atlas-spawn-worker', 'discarded'], ['alex@studio.example', 'sent']])
    expect(drafts[0]!.body).toContain('Bonjour, le formulaire de contact est corrigé.')
    // The database holds one draft per message at most, whoever writes.
    await writeReplyDraft(db, { messageId: id, body: 'Madame,', actor: 'alex@studio.example' })
    await expect(db.insert(atlasReplyDrafts).values({ messageId: id, body: 'a second draft', status: 'draft', createdBy: 'test' })).rejects.toMatchObject({ cause: { code: '23505', constraint_name: 'atlas_reply_drafts_one_draft_idx' } })
    expect((await db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, id))).filter(d => d.status === 'draft')).toHaveLength(1)
  }, 120_000)
})
