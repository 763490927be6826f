// The message timeline's steps from single trail entries: who did them (a person's e-mail, an
// automate, the model), the outcome a failure or a wait gets, the links (spawn, work record,
// lesson) and what is left out; and the latest failed spawn the lesson form opens its scar for.
import { describe, expect, it } from 'vitest'
import { auditStep, authenticatedStep, recapStep, workRecordLink, type AuditRow, type StepContext } from '../../core/timeline-steps'
import { latestFailedSpawn, MessageTimeline, type MessageTimelineView } from '../../core/timeline-schema'

const SPAWN = '0b8c6c3e-2f1d-4a7b-9a51-3a1f0c1d2e3f'
const context: StepContext = { tenants: new Map([['t-1', 'Acme']]), spawnAgents: new Map([[SPAWN, 'integrator']]) }
let next = 1
const entry = (action: string, actor: string, details: Record<string, unknown> = {}): AuditRow => ({ id: next++, at: new Date('2026-12-01T10:00:00Z'), action, actor, details })

describe('the timeline\'s steps', () => {
  it('names the model that classified, the tenant, and a person or an automate as the actor', () => {
    expect(auditStep(entry('classified', 'atlas-collect', { intent: 'run', confidence: 0.87, provider: 'mistral', model: 'mistral-small-latest', tenantId: 't-1' }), context))
      .toMatchObject({ kind: 'classified', title: 'Classified: run (confidence 0.87)', detail: 'tenant Acme', actor: 'mistral / mistral-small-latest', actorKind: 'model', outcome: 'done' })
    // A rule decided (no model): the collector stays the actor; an uncertain answer is a warning.
    expect(auditStep(entry('classified', 'atlas-collect', { intent: 'noise', uncertain: true }), context)).toMatchObject({ actor: 'atlas-collect', actorKind: 'automate', outcome: 'warning', detail: 'no tenant' })
    expect(auditStep(entry('spawn_approved', 'ops@studio.example', { by: 'ops@studio.example' }), context)).toMatchObject({ kind: 'admission', title: 'Approved by ops@studio.example', actorKind: 'person' })
    expect(auditStep(entry('awaiting_approval', 'atlas-collect', { reason: 'unknown sender' }), context)).toMatchObject({ outcome: 'waiting', detail: 'unknown sender' })
  })

  it('links a spawn\'s steps to it, gives the agent its iteration and a failure its reason', () => {
    const ended = auditStep(entry('spawn_completed', 'atlas-spawn-worker', { spawnId: SPAWN, iteration: 2, status: 'OK', commits: [{ sha: 'a' }, { sha: 'b' }], costUsd: 0.5 }), context)
    expect(ended).toMatchObject({ kind: 'iteration', actor: 'integrator', actorKind: 'agent', outcome: 'done', detail: '2 commit(s) · $0.5000', spawnId: SPAWN, links: [{ label: 'Spawn 2', to: `/hub/atlas/spawns/${SPAWN}` }] })
    expect(auditStep(entry('spawn_completed', 'atlas-spawn-worker', { spawnId: SPAWN, iteration: 1, status: 'blocked' }), context)).toMatchObject({ outcome: 'warning' })
    expect(auditStep(entry('spawn_failed', 'atlas-spawn-worker', { spawnId: SPAWN, iteration: 1, reason: 'the agent could not run: no binary' }), context))
      .toMatchObject({ kind: 'iteration', title: 'Spawn 1 failed', detail: 'the agent could not run: no binary', outcome: 'failed', spawnId: SPAWN })
    expect(auditStep(entry('spawn_failed', 'atlas-spawn', { spawnId: SPAWN, reason: 'worker_lost', next: 'back to classified' }), context)).toMatchObject({ title: 'Spawn failed', detail: 'the worker was lost: back to classified' })
    expect(auditStep(entry('deployed', 'atlas-spawn-worker', { spawnId: SPAWN, ok: false, deploy: 'default' }), context)).toMatchObject({ title: 'The deploy failed', outcome: 'failed' })
  })

  it('links the work record and the lessons; leaves out a re-spawn (its spawn tells it) and a skipped cycle', () => {
    expect(workRecordLink('chantier', 'c-1')).toEqual({ label: 'The chantier', labelKey: 'atlas.timeline.steps.links.chantier', to: '/hub/worksites/chantiers/c-1' })
    expect(workRecordLink('question', 'q-1')).toEqual({ label: 'The question', labelKey: 'atlas.timeline.steps.links.question', to: '/hub/worksites/registries/questions/q-1' })
    expect(workRecordLink('noise', 'n-1')).toBeNull()
    expect(auditStep(entry('lesson_recorded', 'ops@studio.example', { lessonId: 12, kind: 'victory', title: 'Cache the menu' }), context))
      .toMatchObject({ kind: 'lesson', title: 'Victory recorded: Cache the menu', links: [{ label: 'Lesson: Cache the menu', to: '/hub/learning?lesson=12' }] })
    expect(auditStep(entry('respawn', 'atlas-spawn-worker', { spawnId: SPAWN }), context)).toBeNull()
    expect(auditStep(entry('spawn_skipped_lock_held', 'atlas-spawn', {}), context)).toBeNull()
    expect(auditStep(entry('some_future_action', 'atlas-collect', {}), context)).toMatchObject({ kind: 'other', title: 'some future action' })
  })

  it('tells the recap from the actioned entry, sent or not, and the sender\'s verdict', () => {
    const actioned = entry('actioned', 'atlas-spawn-worker', { spawnId: SPAWN, summary: 'not sent: ATLAS_SMTP_HOST is not set' })
    expect(recapStep(actioned)).toMatchObject({ id: `recap:${actioned.id}`, kind: 'recap', title: 'Recap not sent', outcome: 'warning' })
    expect(recapStep(entry('actioned', 'atlas-spawn-worker', {}))).toBeNull()
    expect(recapStep(entry('escalated', 'atlas-spawn-worker', { summary: 'sent to x' }))).toBeNull()
    const received = entry('received', 'atlas-collect', { mailbox: 'INBOX' })
    expect(authenticatedStep(received, null)).toMatchObject({ title: 'Sender not authenticated', detail: 'no verdict recorded', outcome: 'warning' })
    expect(authenticatedStep(received, { verdict: 'fail', domain: null, reasons: [], flags: ['lookalike domain'], results: { dkim: 'fail', spf: 'fail', dmarc: 'fail', arc: 'none', trusted: [] }, checkedAt: '' }))
      .toMatchObject({ title: 'Sender authentication failed', detail: 'DKIM fail, SPF fail, DMARC fail · lookalike domain', outcome: 'failed' })
  })

  it('finds the latest failed spawn of a story for its scar, and the schema refuses a step it does not know', () => {
    const step = (kind: string, outcome: string, spawnId: string | null, title = kind) => ({ id: `${kind}-${next++}`, kind, at: '2026-12-01T10:00:00.000Z', title, detail: 'why', actor: 'a', actorKind: 'automate', outcome, spawnId, links: [] })
    const later = '1f2e3d4c-5b6a-4789-8abc-def012345678'
    const story = MessageTimeline.parse({ messageId: 3, status: 'spawn_failed', steps: [step('iteration', 'failed', SPAWN, 'Spawn 1 failed'), step('qa', 'failed', later), step('iteration', 'failed', later, 'Spawn 2 failed')] })
    expect(latestFailedSpawn(story)).toEqual({ spawnId: later, title: 'Spawn 2 failed', reason: 'why' })
    expect(latestFailedSpawn({ ...story, steps: [step('iteration', 'done', SPAWN)] } as MessageTimelineView)).toBeNull()
    expect(latestFailedSpawn(null)).toBeNull()
    expect(MessageTimeline.safeParse({ messageId: 3, status: 'x', steps: [step('teleported', 'done', null)] }).success).toBe(false)
    expect(MessageTimeline.safeParse({ messageId: 3, status: 'x', steps: [{ ...step('lesson', 'done', null), links: [{ label: 'x', to: 'https://evil.example' }] }] }).success).toBe(false)
  })
})
