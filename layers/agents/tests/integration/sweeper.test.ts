// Runs orphaned by a stopped hub, on both databases: a `running` run whose driving process on
// this host is gone is failed with a clear error; a live process's run, another host's run and
// a finished run are left alone; a run with no recorded driver is swept only once idle for an
// hour. The lock-guardian automate (an entry point, with the real process check) sweeps too,
// and expires the approvals past their 72 hours so their agent is no longer counted busy.
import { spawnSync } from 'node:child_process'
import { eq, sql } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentApprovals, agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { hubUsers } from '#db/schema/hub'
import lockGuardian from '#automates/lock-guardian'
import { insertRun } from '../../core/engine/store'
import { ConfigBody, createCustomAgent } from '../../core/custom/agents'
import { dispatchEvents } from '../../core/custom/dispatcher'
import { ORPHAN_IDLE_MS, processAlive, sweepOrphanRuns } from '../../core/engine/sweeper'

const run = (request: string, extra: Partial<typeof agentRuns.$inferInsert>) => ({
  surface: 'hub_chat', trigger: 'interactive', agent: 'personal:op@studio.test', actingEmail: 'op@studio.test', actingRole: 'operator',
  ownerEmail: 'op@studio.test', regime: 'user', request, context: {}, ...extra,
})

describeOnBothDatabases('orphaned agent runs', (database) => {
  it('fails the runs whose process is gone, and only those', async () => {
    const { db } = database()
    const dead = await insertRun(db, run('dead', { runnerHost: 'this-host', runnerPid: 666 }))
    const alive = await insertRun(db, run('alive', { runnerHost: 'this-host', runnerPid: 42 }))
    const elsewhere = await insertRun(db, run('elsewhere', { runnerHost: 'other-host', runnerPid: 666 }))
    const finished = await insertRun(db, run('finished', { runnerHost: 'this-host', runnerPid: 666, status: 'succeeded' }))
    const legacyIdle = await insertRun(db, run('legacy idle', { updatedAt: new Date(Date.now() - ORPHAN_IDLE_MS - 60_000) }))
    const legacyFresh = await insertRun(db, run('legacy fresh', {}))
    const swept = await sweepOrphanRuns({ db, host: 'this-host', isProcessAlive: pid => pid !== 666 })
    expect(swept.map(s => s.id).sort()).toEqual([dead.id, legacyIdle.id].sort())
    const status = async (id: string) => (await db.select().from(agentRuns).where(eq(agentRuns.id, id)))[0]!
    expect(await status(dead.id)).toMatchObject({ status: 'failed', error: 'orphaned: the hub process 666 on this-host that drove this run stopped before it ended' })
    expect((await status(dead.id)).endedAt).not.toBeNull()
    expect((await status(legacyIdle.id)).error).toMatch(/no hub process drives this run/)
    for (const kept of [alive, elsewhere, legacyFresh]) expect((await status(kept.id)).status, kept.request).toBe('running')
    expect((await status(finished.id)).status).toBe('succeeded')
    // A second sweep finds nothing new.
    expect(await sweepOrphanRuns({ db, host: 'this-host', isProcessAlive: pid => pid !== 666 })).toEqual([])
    await db.execute(sql`update agent_runs set status = 'stopped' where status = 'running'`)
  })

  it('is swept by the lock-guardian automate, with the real process check', async () => {
    const { db } = database()
    const gone = spawnSync(process.execPath, ['-e', '']).pid!
    expect(processAlive(gone)).toBe(false)
    expect(processAlive(process.pid)).toBe(true)
    const orphan = await insertRun(db, run('orphan', { runnerHost: 'guardian-host', runnerPid: gone }))
    const mine = await insertRun(db, run('mine', { runnerHost: 'guardian-host', runnerPid: process.pid }))
    const lines: string[] = []
    const code = await lockGuardian.run({ db, args: [], log: line => lines.push(line), signal: new AbortController().signal, host: 'guardian-host', now: () => new Date(), notConfigured: () => {} })
    expect(code).toBe(0)
    expect(lines.join('\n')).toContain(`agent run ${orphan.id}: orphaned`)
    expect(lines.join('\n')).toContain('1 orphaned agent run(s) failed')
    const rows = await db.select({ id: agentRuns.id, status: agentRuns.status }).from(agentRuns).where(sql`${agentRuns.id} in (${orphan.id}::uuid, ${mine.id}::uuid)`)
    expect(Object.fromEntries(rows.map(row => [row.id, row.status]))).toEqual({ [orphan.id]: 'failed', [mine.id]: 'running' })
  })

  it('expires stale approvals in the lock guardian\'s cycle, so the dispatcher no longer counts the agent busy', async () => {
    const { db } = database()
    const owner = { email: 'guardian-owner@studio.test', role: 'operator' as const }
    await db.insert(hubUsers).values({ email: owner.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
    await createCustomAgent(db, owner, { ...ConfigBody.parse({ nickname: 'Waiting', triggers: [{ kind: 'event', event: 'lesson_recorded' }] }), codename: 'waiting-bot' })
    const waiting = (request: string) => run(request, { agent: 'waiting-bot', status: 'awaiting_approval', surface: 'automate', trigger: 'autonomous', regime: 'allowlist' })
    const approvals = []
    for (const [request, age] of [['stale one', 73], ['stale two', 80], ['fresh', 1]] as const) {
      const requestedAt = new Date(Date.now() - age * 3600_000)
      const row = await insertRun(db, waiting(request))
      const [step] = await db.insert(agentRunSteps).values({ runId: row.id, seq: 1, kind: 'tool', tool: 'send_mail', toolClass: 'EXTERNAL_WRITE', status: 'awaiting_approval' }).returning()
      const [approval] = await db.insert(agentApprovals).values({ runId: row.id, stepId: step!.id, agent: 'waiting-bot', tool: 'send_mail', payload: {}, askedOf: owner.email, requestedAt, expiresAt: new Date(requestedAt.getTime() + 72 * 3600_000) }).returning()
      approvals.push({ run: row, step: step!, approval: approval! })
    }
    // Two runs wait on approvals: the agent is busy, whatever the event.
    const launched: string[] = []
    const deps = {
      db,
      launch: async () => {
        launched.push('run')
        return '00000000-0000-4000-8000-0000000000ff'
      },
    }
    const lesson = (id: string) => ({ kind: 'lesson_recorded' as const, id, actor: 'hub', agent: null, fields: { title: 'anything' } })
    expect((await dispatchEvents(deps, [lesson('guardian-1')])).map(r => r.outcome)).toEqual(['busy'])

    const lines: string[] = []
    const code = await lockGuardian.run({ db, args: [], log: line => lines.push(line), signal: new AbortController().signal, host: 'guardian-host', now: () => new Date(), notConfigured: () => {} })
    expect(code).toBe(0)
    expect(lines.join('\n')).toContain('2 stale approval(s) expired')
    const statusOf = async (id: string) =>
      (await db.select({ status: agentApprovals.status }).from(agentApprovals).where(eq(agentApprovals.id, id)))[0]!.status
    expect(await Promise.all(approvals.map(a => statusOf(a.approval.id)))).toEqual(['expired', 'expired', 'pending'])
    const runs = await db.select({ id: agentRuns.id, status: agentRuns.status, error: agentRuns.error }).from(agentRuns).where(eq(agentRuns.agent, 'waiting-bot'))
    expect(Object.fromEntries(runs.map(r => [r.id, [r.status, r.error]]))).toEqual({
      [approvals[0]!.run.id]: ['failed', 'approval_expired'],
      [approvals[1]!.run.id]: ['failed', 'approval_expired'],
      [approvals[2]!.run.id]: ['awaiting_approval', null],
    })
    const [step] = await db.select().from(agentRunSteps).where(eq(agentRunSteps.id, approvals[0]!.step.id))
    expect(step).toMatchObject({ status: 'expired', error: 'approval_expired: not decided within 72 hours' })
    // One run still waits: the next event fires.
    expect((await dispatchEvents(deps, [lesson('guardian-2')])).map(r => r.outcome)).toEqual(['fired'])
    expect(launched).toEqual(['run'])
    // The next cycle finds nothing more to expire.
    lines.length = 0
    await lockGuardian.run({ db, args: [], log: line => lines.push(line), signal: new AbortController().signal, host: 'guardian-host', now: () => new Date(), notConfigured: () => {} })
    expect(lines.join('\n')).toContain('0 stale approval(s) expired')
  })
})
