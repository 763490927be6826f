// Runs orphaned by a stopped hub, on both databases: a `running` run whose driving process on
// this host is gone is failed with a clear error; a live process's run, another host's run and
// a finished run are left alone; a run with no recorded driver is swept only once idle for an
// hour. The lock-guardian automate (an entry point, with the real process check) sweeps too.
import { spawnSync } from 'node:child_process'
import { eq, sql } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentRuns } from '#db/schema/agent-runs'
import lockGuardian from '#automates/lock-guardian'
import { insertRun } from '../../core/engine/store'
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
})
