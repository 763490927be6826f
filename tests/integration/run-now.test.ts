// A founder runs a nightly automate now (issue 36 Deliver 5), on both databases: the suggestion
// job's dry run proposes nothing and says what it would do; its real run, started the way the
// hub route starts it (a process through the supervision wrapper, the crontab line's flags),
// leaves pending suggestions, and both runs are rows of its run log with their output. A run
// already going, a switched-off automate, an unknown one and a dry run an automate lacks are
// refused with a machine-readable code. (The route's 403 for an operator: tests/http/run-now.test.ts.)
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { ROOT } from '#tests/helpers/processes'
import { hubAudit, opsCronRuns } from '#db/schema/index'
import { learnSuggestions } from '#db/schema/learn'
import { setAutomationActive, syncAutomations } from '#layers/health/core/automations'
import { acquireLease, releaseLease } from '#layers/health/core/leases'
import { processLauncher, runAutomateNow, type RunNowDeps } from '#layers/health/core/run-now'
import { leaseName } from '#layers/health/core/supervise'
import { startScriptedModel, type ScriptedModel } from '#layers/learning/tests/fakes/model'
import { lesson, seedWorld, tempFolders } from '#layers/learning/tests/fixtures/world'

const FOUNDER = 'founder-run-now@studio.test'

describeOnBothDatabases('running an automate now', (database) => {
  let model: ScriptedModel
  let folders: ReturnType<typeof tempFolders>
  let deps: RunNowDeps
  const logs: string[] = []

  beforeAll(async () => {
    model = await startScriptedModel()
    model.byDefault(() => ({ destination: 'reflex', suggestion: 'Check the migrations before the deploy.', diff_before: '', diff_after: 'Run the migrations before the deploy.' }))
    folders = tempFolders()
    const { db, url } = database()
    await seedWorld(db)
    for (let i = 0; i < 3; i++) await lesson(db, { importance: 5 + i })
    await syncAutomations(db, [
      { line: 1, schedule: '10 4 * * *', automation: 'learning-suggest', args: ['--delay-ms', '0'] },
      { line: 2, schedule: '* * * * *', automation: 'agents-dispatch', args: [] },
    ], name => ({ name, description: name, scope: '', dryRun: name === 'learning-suggest' }))
    const env = { ...process.env, DATABASE_URL: url, REFLEX_DIR: folders.reflexDir, VAULT_DIR: folders.vaultDir, ...model.env }
    deps = { db, launch: processLauncher({ root: ROOT, env, log: line => logs.push(line) }) }
  }, 60_000)
  afterAll(async () => {
    await model.close()
    folders.remove()
  })

  const finished = async (pid: number) => {
    const { db } = database()
    await expect
      .poll(async () => (await db.select().from(opsCronRuns).where(eq(opsCronRuns.pid, pid)))[0]?.status, {
        timeout: 120_000,
        interval: 500,
      })
      .toMatch(/^(ok|failed|not_configured|skipped)$/)
    return (await db.select().from(opsCronRuns).where(eq(opsCronRuns.pid, pid)))[0]!
  }

  it('runs the suggestion job\'s dry run, then the job itself: suggestions appear, both runs in its log', async () => {
    const { db } = database()
    const dry = await runAutomateNow(deps, 'learning-suggest', 'dry_run', FOUNDER)
    expect(dry).toMatchObject({ name: 'learning-suggest', mode: 'dry_run', args: ['--dry-run'] })
    const dryRun = await finished(dry.pid)
    expect(dryRun, logs.join('\n')).toMatchObject({ automation: 'learning-suggest', status: 'ok', args: ['--dry-run'] })
    expect(dryRun.outputTail).toContain('[dry-run] would propose for 3 of 3 learnable lesson(s)')
    expect(await db.select().from(learnSuggestions)).toHaveLength(0)

    const live = await runAutomateNow(deps, 'learning-suggest', 'live', FOUNDER)
    expect(live.args).toEqual(['--delay-ms', '0'])
    const liveRun = await finished(live.pid)
    expect(liveRun, logs.join('\n')).toMatchObject({ status: 'ok', exitCode: 0, args: ['--delay-ms', '0'] })
    expect(liveRun.outputTail).toContain('proposed 3 of 3 learnable lesson(s)')
    const suggestions = await db.select().from(learnSuggestions)
    expect(suggestions).toHaveLength(3)
    expect(suggestions.every(s => s.status === 'pending' && s.destination === 'reflex')).toBe(true)
    const audit = await db.select().from(hubAudit).where(eq(hubAudit.action, 'automation_run_now'))
    expect(audit.map(a => [a.actor, a.target, (a.details as { mode: string }).mode])).toEqual([[FOUNDER, 'learning-suggest', 'dry_run'], [FOUNDER, 'learning-suggest', 'live']])
  }, 300_000)

  it('refuses, with a code, a run already going, a switched-off automate, an unknown one and a missing dry run', async () => {
    const { db } = database()
    const launched: string[] = []
    const counting: RunNowDeps = {
      db,
      launch: async (name) => {
        launched.push(name)
        return { pid: 1 }
      },
    }
    await acquireLease(db, leaseName('learning-suggest'), { holder: 'night', host: 'other-host', pid: 4242 }, 60_000)
    await expect(runAutomateNow(counting, 'learning-suggest', 'live', FOUNDER)).rejects.toMatchObject({ code: 'already_running', status: 409 })
    await releaseLease(db, leaseName('learning-suggest'), 'night')
    await setAutomationActive(db, 'learning-suggest', false, FOUNDER)
    await expect(runAutomateNow(counting, 'learning-suggest', 'dry_run', FOUNDER)).rejects.toMatchObject({ code: 'switched_off', status: 409 })
    await setAutomationActive(db, 'learning-suggest', true, FOUNDER)
    await expect(runAutomateNow(counting, 'no-such-automate', 'live', FOUNDER)).rejects.toMatchObject({ code: 'not_found', status: 404 })
    await expect(runAutomateNow(counting, 'agents-dispatch', 'dry_run', FOUNDER)).rejects.toMatchObject({ code: 'no_dry_run', status: 400 })
    expect(launched).toEqual([])
    expect(await runAutomateNow(counting, 'agents-dispatch', 'live', FOUNDER)).toMatchObject({ args: [], pid: 1 })
    expect(launched).toEqual(['agents-dispatch'])
  })
})
