// A spawn whose agent CLI is missing (issue 36, deliverable 3): it fails before anything
// starts, and every place that shows it — the spawn's reason, the message's status, the audit,
// the team's mail, the agents registry's trail — names the binary and SPAWN_AGENT_BIN; none
// calls it a success (the walk found "the agent exited with code 1 (its result: success)").
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { startEngine, type Engine } from '../fixtures/engine'
import { actions, audits, classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'

const MISSING = '/nonexistent/agents/claude'

describeOnBothDatabases('A spawn whose agent CLI is missing', (database) => {
  let engine: Engine
  beforeAll(async () => {
    engine = await startEngine(database().db, database().url, { SPAWN_AGENT_BIN: MISSING })
  })
  afterAll(async () => {
    await engine?.close()
  })

  it('fails before starting, with a reason naming the binary and the variable, and no word of success', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run', subject: 'Un agent absent' })
    await engine.cycle()
    const before = engine.sent.length
    await engine.drain()
    const [spawn] = await spawnsOf(db, id)
    const expected = `the agent CLI was not found at ${MISSING} (SPAWN_AGENT_BIN): install it or set SPAWN_AGENT_BIN`
    expect(spawn).toMatchObject({ status: 'failed', outcome: 'spawn_failed', reason: expected, agentPid: null, resultSource: null })
    const row = await inbox(db, id)
    expect(row).toMatchObject({ status: 'spawn_failed', needsHuman: true, statusReason: expected })
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_failed'])
    const failed = (await audits(db, id)).find(a => a.action === 'spawn_failed')
    expect(failed?.details).toMatchObject({ reason: expected })
    const mails = engine.sent.slice(before)
    expect(mails).toMatchObject([{ subject: expect.stringContaining('Spawn failed'), text: expect.stringContaining(`Why: ${expected}`) }])
    // Nothing ran: no event, and no text anywhere says the run succeeded.
    expect(await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id))).toEqual([])
    const shown = JSON.stringify({ reason: spawn!.reason, status: row.statusReason, audit: failed?.details, mail: mails })
    expect(shown).not.toMatch(/success/i)
    expect(engine.logs.join('\n')).toContain(`spawn failed: ${expected}`)
  })
})
