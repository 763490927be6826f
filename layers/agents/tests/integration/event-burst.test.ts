// A burst against the dispatcher's event cycle (issue 35 Deliver 5), on native PostgreSQL (the
// burst is 5,000 firings; the cursor SQL runs on both databases in custom-triggers.test.ts):
// 5,000 events — 4,000 work item transitions, half of them at one identical timestamp, and
// 1,000 lessons all at another — against 500 triggers (50 agents × 10). Every matching
// trigger fires exactly once per matching event, none twice and none lost, although the
// dispatcher is stopped mid-page and restarted from its stored cursors.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '#tests/helpers/databases'
import { agents } from '#db/schema/agents'
import { agentCustom, agentEventCursors, agentTriggerFires, agentTriggers } from '#db/schema/custom-agents'
import { learnLessons } from '#db/schema/learn'
import { workTransitions } from '#db/schema/worksites'
import { dispatchEventCycle } from '../../core/custom/event-cycle'
import type { DispatchDeps, LaunchRun } from '../../core/custom/dispatcher'

const AGENTS = 50
const TRANSITIONS = 4000
const LESSONS = 1000

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('native', { max: 6 })
})
afterAll(async () => {
  await database?.close()
})

const entityOf = (a: number) => `00000000-0000-4000-8000-${String(a).padStart(12, '0')}`

it('fires each matching trigger once per event in a burst, across a stop and a restart', async () => {
  const { db } = database
  const names = Array.from({ length: AGENTS }, (_, a) => `burst-agent-${a}`)
  await db.insert(agents).values(names.map(codename => ({ codename, nickname: codename })))
  await db.insert(agentCustom).values(names.map(codename => ({ codename, ownerEmail: 'owner@studio.test', runsPerHour: 120 })))
  // Per agent: one trigger on its work item, one on its lessons, eight that match nothing here.
  const rows = await db.insert(agentTriggers).values(names.flatMap((codename, a) => [
    { codename, kind: 'event', event: 'work_item_status', filters: [{ field: 'entity_id', op: 'eq' as const, value: entityOf(a) }, { field: 'status', op: 'changed' as const }] },
    { codename, kind: 'event', event: 'lesson_recorded', filters: [{ field: 'title', op: 'contains' as const, value: `[burst-${a}]` }] },
    { codename, kind: 'event', event: 'work_item_status', filters: [{ field: 'entity_id', op: 'eq' as const, value: entityOf(a) }, { field: 'status', op: 'eq' as const, value: 'archived' }] },
    { codename, kind: 'event', event: 'lesson_recorded', filters: [{ field: 'kind', op: 'eq' as const, value: 'success' }] },
    { codename, kind: 'event', event: 'atlas_message', filters: [{ field: 'intent', op: 'eq' as const, value: 'run' }] },
    { codename, kind: 'mail', event: randomUUID(), filters: [] },
    { codename, kind: 'mention' },
    { codename, kind: 'event', event: 'work_item_status', filters: [{ field: 'entity', op: 'eq' as const, value: 'chantier' }] },
    { codename, kind: 'event', event: 'lesson_recorded', filters: [{ field: 'title', op: 'contains' as const, value: 'never written' }] },
    { codename, kind: 'event', event: 'work_item_status', filters: [{ field: 'status', op: 'neq' as const, value: 'done' }, { field: 'entity', op: 'eq' as const, value: 'question' }] },
  ])).returning({ id: agentTriggers.id, codename: agentTriggers.codename, event: agentTriggers.event, filters: agentTriggers.filters })
  expect(rows).toHaveLength(500)
  const transitionTrigger = new Map(rows.filter(r => r.event === 'work_item_status' && r.filters.length === 2 && r.filters[1]!.op === 'changed').map(r => [r.codename, r.id]))
  const lessonTrigger = new Map(rows.filter(r => r.event === 'lesson_recorded' && r.filters[0]?.value?.startsWith('[burst-')).map(r => [r.codename, r.id]))

  // Half the transitions share one timestamp, the rest one millisecond apart; every lesson shares another.
  const base = Date.now() - 120_000
  const transitions = Array.from({ length: TRANSITIONS }, (_, i) => ({
    entity: 'task', entityId: entityOf(i % AGENTS), kind: 'transition', fromStatus: 'todo', toStatus: 'doing', actor: 'person@studio.test',
    at: new Date(i < TRANSITIONS / 2 ? base : base + i),
  }))
  const inserted: Array<{ id: number, entityId: string }> = []
  for (let i = 0; i < transitions.length; i += 1000)
    inserted.push(
      ...(await db
        .insert(workTransitions)
        .values(transitions.slice(i, i + 1000))
        .returning({ id: workTransitions.id, entityId: workTransitions.entityId })),
    )
  const lessons = await db.insert(learnLessons).values(Array.from({ length: LESSONS }, (_, i) => ({ title: `Lesson ${i} [burst-${i % AGENTS}]`, kind: 'failure' as const, createdAt: new Date(base + 30_000) })))
    .returning({ id: learnLessons.id, title: learnLessons.title })

  const expected = new Set([
    ...inserted.map(row => `${transitionTrigger.get(`burst-agent-${Number(row.entityId.slice(-12))}`)}|work_item_status:${row.id}`),
    ...lessons.map(row => `${lessonTrigger.get(`burst-agent-${/\[burst-(\d+)\]/.exec(row.title)![1]}`)}|lesson_recorded:${row.id}`),
  ])
  expect(expected.size).toBe(TRANSITIONS + LESSONS)

  const launched: string[] = []
  const stop = new AbortController()
  const launch: LaunchRun = async ({ triggerId, event }) => {
    launched.push(`${triggerId}|${event!.kind}:${event!.id}`)
    // Stopped mid-page (SIGTERM to the automate): the page's other firings are not made.
    if (launched.length === 1700) stop.abort(new Error('stopped'))
    return randomUUID()
  }
  const deps = (signal?: AbortSignal): DispatchDeps => ({ db, launch, signal })
  await expect(dispatchEventCycle(deps(stop.signal))).rejects.toThrow('stopped')
  const beforeRestart = launched.length
  expect(beforeRestart).toBeGreaterThanOrEqual(1700)
  expect(beforeRestart).toBeLessThan(expected.size)
  // Cursors were kept for the pages done before the stop, not for the one it interrupted.
  expect((await db.select().from(agentEventCursors)).length).toBe(5)

  const restarted = await dispatchEventCycle(deps())
  expect(restarted.drained).toBe(true)
  // The interrupted page is read again: what it had already fired comes back as duplicates.
  expect(restarted.results.some(result => result.outcome === 'duplicate')).toBe(true)
  expect(restarted.results.filter(result => result.outcome === 'fired')).toHaveLength(expected.size - beforeRestart)

  expect(launched).toHaveLength(expected.size)
  expect(new Set(launched)).toEqual(expected)
  const fires = await db.select({ outcome: agentTriggerFires.outcome, runId: agentTriggerFires.runId }).from(agentTriggerFires)
  expect(fires).toHaveLength(expected.size)
  expect(fires.every(fire => fire.outcome === 'fired' && fire.runId !== null)).toBe(true)

  // Drained: a further cycle reads nothing.
  const again = await dispatchEventCycle(deps())
  expect(again).toMatchObject({ events: 0, pages: 0, drained: true, results: [] })
}, 300_000)
