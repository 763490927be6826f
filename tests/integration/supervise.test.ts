import { expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { supervise, leaseName, type SuperviseDeps } from '#layers/health/core/supervise'
import { defineAutomate } from '#layers/health/core/automate'
import { recentRuns } from '#layers/health/core/cron-runs'
import { readLease } from '#layers/health/core/leases'
import { opsAutomations } from '#db/schema/index'
import type { Db } from '#db/connection'

function deps(db: Db, pid: number, out: string[] = []): SuperviseDeps {
  return { db, host: 'test-host', pid, write: text => out.push(text) }
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

describeOnBothDatabases('supervision wrapper', (database) => {
  it('records a successful run with exit code, duration and output tail, and releases the lease', async () => {
    const { db } = database()
    const automate = defineAutomate({ name: 'probe-ok', description: '', scope: '', run: async (ctx) => {
      ctx.log(`hello ${ctx.args.join(' ')}`)
      return 0
    } })
    const result = await supervise(deps(db, 1), automate, ['--json'])
    expect(result).toEqual({ status: 'ok', exitCode: 0, reason: undefined })
    const [run] = await recentRuns(db, 'probe-ok')
    expect(run).toMatchObject({ status: 'ok', exitCode: 0, args: ['--json'], host: 'test-host', pid: 1, outputTail: 'hello --json\n' })
    expect(run!.durationMs).toBeGreaterThanOrEqual(0)
    expect(run!.endedAt).not.toBeNull()
    expect(await readLease(db, leaseName('probe-ok'))).toBeUndefined()
  })

  it('writes the output so far to the running run\'s row (live progress), then the whole tail at its end', async () => {
    const { db } = database()
    let proceed!: () => void
    const waiting = new Promise<void>((resolve) => {
      proceed = resolve
    })
    const automate = defineAutomate({ name: 'probe-progress', description: '', scope: '', run: async (ctx) => {
      ctx.log('step 1 of 2')
      await waiting
      ctx.log('step 2 of 2')
      return 0
    } })
    const running = supervise(deps(db, 1), automate, [])
    await expect.poll(async () => (await recentRuns(db, 'probe-progress'))[0], { timeout: 30_000, interval: 200 })
      .toMatchObject({ status: 'running', outputTail: 'step 1 of 2\n' })
    proceed()
    expect(await running).toMatchObject({ status: 'ok' })
    expect((await recentRuns(db, 'probe-progress'))[0]).toMatchObject({ status: 'ok', outputTail: 'step 1 of 2\nstep 2 of 2\n' })
  })

  it('records a run whose prerequisite is missing as not_configured, with the variable to set, never ok', async () => {
    const { db } = database()
    const automate = defineAutomate({ name: 'probe-unset', description: '', scope: '', run: async (ctx) => {
      ctx.log('nothing to poll')
      ctx.notConfigured('PROBE_HOST', 'no server to poll')
      return 0
    } })
    expect(await supervise(deps(db, 1), automate, [])).toEqual({ status: 'not_configured', exitCode: 0, reason: 'set PROBE_HOST: no server to poll' })
    const [run] = await recentRuns(db, 'probe-unset')
    expect(run).toMatchObject({ status: 'not_configured', exitCode: 0, reason: 'set PROBE_HOST: no server to poll', outputTail: 'nothing to poll\n' })

    // A failure stays a failure, whatever else it said.
    const failing = defineAutomate({ name: 'probe-unset-failing', description: '', scope: '', run: async (ctx) => {
      ctx.notConfigured('PROBE_HOST', 'no server to poll')
      return 2
    } })
    // Its reason says the code, what was missing and its last line (never nothing).
    expect(await supervise(deps(db, 1), failing, [])).toEqual({ status: 'failed', exitCode: 2, reason: 'exited with code 2; set PROBE_HOST: no server to poll; it printed nothing' })
    const refused = defineAutomate({ name: 'probe-refused', description: '', scope: '', run: async () => {
      const { connect } = await import('node:net')
      await new Promise((resolve, reject) => connect({ host: '127.0.0.1', port: 9 }).once('connect', resolve).once('error', reject))
      return 0
    } })
    expect(await supervise(deps(db, 1), refused, [])).toEqual({ status: 'failed', exitCode: 1, reason: 'nothing answers on 127.0.0.1:9: start the service or correct the address' })
    const [refusedRun] = await recentRuns(db, 'probe-refused')
    expect(refusedRun).toMatchObject({ status: 'failed', reason: 'nothing answers on 127.0.0.1:9: start the service or correct the address' })
  })

  it('records an informational exit code (the health report\'s 1 warning, 2 critical) as ok with its code; a crash stays failed', async () => {
    const { db } = database()
    const reporting = (code: number) => defineAutomate({ name: 'probe-informational', description: '', scope: '', informationalExitCodes: [1, 2], run: async () => code })
    expect(await supervise(deps(db, 1), reporting(2), [])).toEqual({ status: 'ok', exitCode: 2, reason: undefined })
    expect(await supervise(deps(db, 1), reporting(3), [])).toMatchObject({ status: 'failed', exitCode: 3 })
    const crashing = defineAutomate({ name: 'probe-informational', description: '', scope: '', informationalExitCodes: [1, 2], run: async () => {
      throw new Error('crashed')
    } })
    expect(await supervise(deps(db, 1), crashing, [])).toMatchObject({ status: 'failed', exitCode: 1, reason: 'crashed' })
    expect((await recentRuns(db, 'probe-informational')).map(r => [r.status, r.exitCode])).toEqual([['failed', 1], ['failed', 3], ['ok', 2]])
  })

  it('records a crash as failed with the error in the tail, exit code 1', async () => {
    const { db } = database()
    const automate = defineAutomate({ name: 'probe-crash', description: '', scope: '', run: async () => {
      throw new Error('boom at step 2')
    } })
    const out: string[] = []
    expect(await supervise(deps(db, 1, out), automate, [])).toMatchObject({ status: 'failed', exitCode: 1, reason: 'boom at step 2' })
    const [run] = await recentRuns(db, 'probe-crash')
    expect(run).toMatchObject({ status: 'failed', exitCode: 1, reason: 'boom at step 2' })
    expect(run!.outputTail).toContain('boom at step 2')
    expect(await readLease(db, leaseName('probe-crash'))).toBeUndefined()
  })

  it('never runs two instances at once: the second is skipped while the first holds the lease', async () => {
    const { db } = database()
    const intervals: Array<[number, number]> = []
    const automate = defineAutomate({ name: 'probe-slow', description: '', scope: '', run: async () => {
      const start = Date.now()
      await sleep(400)
      intervals.push([start, Date.now()])
      return 0
    } })
    const results = await Promise.all([supervise(deps(db, 1), automate, []), supervise(deps(db, 2), automate, [])])
    expect(results.map(r => r.status).sort()).toEqual(['ok', 'skipped'])
    expect(results.find(r => r.status === 'skipped')!.reason).toMatch(/lease held by test-host:[12] since/)
    expect(intervals).toHaveLength(1)
    const runs = await recentRuns(db, 'probe-slow')
    expect(runs.map(r => r.status).sort()).toEqual(['ok', 'skipped'])
  })

  it('skips and logs why when the circuit breaker is off (active = false)', async () => {
    const { db } = database()
    let ran = false
    const automate = defineAutomate({ name: 'probe-off', description: '', scope: '', run: async () => {
      ran = true
      return 0
    } })
    await db.insert(opsAutomations).values({ name: 'probe-off', schedule: '* * * * *', scope: 'test', active: false, updatedBy: 'founder@studio.test' })
    const out: string[] = []
    const result = await supervise(deps(db, 1, out), automate, [])
    expect(ran).toBe(false)
    expect(result.status).toBe('skipped')
    expect(result.reason).toContain('circuit breaker')
    expect(out.join('')).toContain('switched off by founder@studio.test')
    const [run] = await recentRuns(db, 'probe-off')
    expect(run).toMatchObject({ status: 'skipped', exitCode: 0 })
    await db.update(opsAutomations).set({ active: true }).where(eq(opsAutomations.name, 'probe-off'))
    await supervise(deps(db, 1), automate, [])
    expect(ran).toBe(true)
  })

  it('heartbeats a long run and aborts the automate when its lease is taken over', async () => {
    const { db } = database()
    const automate = defineAutomate({ name: 'probe-lost', description: '', scope: '', leaseTtlMs: 3000, run: async (ctx) => {
      const before = (await readLease(db, leaseName('probe-lost')))!.heartbeatAt.getTime()
      await sleep(1300)
      const after = (await readLease(db, leaseName('probe-lost')))!.heartbeatAt.getTime()
      ctx.log(after > before ? 'heartbeat seen' : 'no heartbeat')
      await db.execute(sql`update ops_locks set holder = 'intruder' where name = ${leaseName('probe-lost')}`)
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => resolve(), { once: true })
        setTimeout(resolve, 5000)
      })
      return ctx.signal.aborted ? 3 : 0
    } })
    const result = await supervise(deps(db, 1), automate, [])
    expect(result.exitCode).toBe(3)
    const [run] = await recentRuns(db, 'probe-lost')
    expect(run!.outputTail).toContain('heartbeat seen')
  })
})
