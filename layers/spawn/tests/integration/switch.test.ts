// The spawn engine's switch as a founder turns it from the hub (issue 36, Deliver 2), on both
// databases with the real parts (pg-boss, the stand-in agent in bubblewrap): while the stored
// switch is off the orchestrator queues nothing and the worker takes no job, saying who
// switched it off; switched on again, the waiting job is taken. The environment's
// ATLAS_SPAWN_DISABLED=1 still forces it off whatever is stored.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { hubAudit } from '#db/schema/hub'
import { spawnEngineSwitch } from '#db/schema/spawn-switch'
import { seedAgents } from '#layers/agents/core/seed'
import { spawnEngineStatus } from '#layers/spawn/core/queries'
import { engineOff, readSpawnSwitch, setSpawnSwitch } from '#layers/spawn/core/switch'
import { startEngine, type Engine } from '../fixtures/engine'
import { classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'

// One spawn checks out a repository and starts a sandbox: more than the suite's 30 s on a shared machine.
vi.setConfig({ testTimeout: 120_000 })

const FOUNDER = 'founder@studio.example'

describeOnBothDatabases('the spawn engine\'s switch in the hub', (database) => {
  let engine: Engine

  beforeAll(async () => {
    await seedAgents(database().db)
    engine = await startEngine(database().db, database().url, { SPAWN_SANDBOX: 'bwrap' })
  })
  afterAll(async () => {
    await engine?.close()
  })

  const fast = () => ({ env: { ...engine.env, STAND_IN_VARIANT: 'fast' } })

  it('takes no job while a founder has it off, and takes the waiting one once it is on again', async () => {
    const { db } = database()
    expect(await readSpawnSwitch(db)).toBeNull()
    expect(await engineOff(db, false)).toBeNull()

    // Queued while on: a job waits for the workers.
    const waiting = await classifiedMessage(db, { intent: 'run' })
    expect((await engine.cycle()).queued.map(q => q.messageId)).toEqual([waiting])

    await setSpawnSwitch(db, { disabled: true, by: FOUNDER, reason: 'a runaway agent' })
    // The orchestrator queues nothing more, and says who switched it off.
    const later = await classifiedMessage(db, { intent: 'run' })
    const cycle = await engine.cycle()
    expect(cycle).toMatchObject({ disabled: true, disabledBy: 'hub', queued: [], candidates: [] })
    expect(engine.logs.join('\n')).toContain(`switched off from the hub by ${FOUNDER}`)
    expect((await inbox(db, later)).status).toBe('classified')
    // The worker takes no job: the queued spawn stays queued.
    const off = await engine.drain(fast())
    expect(off.processed).toBe(0)
    expect(engine.logs.join('\n')).toMatch(/switched off from the hub by founder@studio\.example .*no job is taken/)
    expect((await spawnsOf(db, waiting)).map(s => s.status)).toEqual(['queued'])
    expect(await spawnEngineStatus(db, {})).toMatchObject({
      disabled: true, disabledBy: 'hub', note: expect.stringContaining(FOUNDER),
      switch: { disabled: true, by: FOUNDER, reason: 'a runaway agent' },
    })

    // The environment still forces it off, and is named first, whatever the hub stores.
    await setSpawnSwitch(db, { disabled: false, by: FOUNDER })
    expect(await spawnEngineStatus(db, { ATLAS_SPAWN_DISABLED: '1' })).toMatchObject({ disabled: true, disabledBy: 'env', note: expect.stringContaining('ATLAS_SPAWN_DISABLED=1'), switch: { disabled: false } })
    expect(await engineOff(db, true)).toEqual({ by: 'env' })

    // On again: the waiting job is taken, and the orchestrator queues the message held back.
    expect(await spawnEngineStatus(db, {})).toMatchObject({ disabled: false, disabledBy: null, note: null })
    const on = await engine.drain(fast())
    expect(on.outcomes.map(o => o.messageId)).toEqual([waiting])
    expect((await spawnsOf(db, waiting))[0]!.status).not.toBe('queued')
    expect((await engine.cycle()).queued.map(q => q.messageId)).toEqual([later])
    await engine.drain(fast())

    // Each turn is kept with who and why, and audited.
    const turns = await db.select().from(spawnEngineSwitch).orderBy(spawnEngineSwitch.id)
    expect(turns.map(turn => [turn.disabled, turn.changedBy, turn.reason])).toEqual([[true, FOUNDER, 'a runaway agent'], [false, FOUNDER, null]])
    const audit = await db.select({ action: hubAudit.action, details: hubAudit.details }).from(hubAudit).where(eq(hubAudit.target, 'atlas-spawn')).orderBy(hubAudit.id)
    expect(audit).toEqual([{ action: 'spawn_engine_disabled', details: { reason: 'a runaway agent' } }, { action: 'spawn_engine_enabled', details: {} }])
  })
})
