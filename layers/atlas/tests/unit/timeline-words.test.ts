// The timeline in the reader's language: beside each English text the server words itself, a
// key both catalogs hold whose English, rendered with the step's values, is that very text; and
// every step message of the catalog is emitted by some case (the cases reach every branch).
import { describe, expect, it } from 'vitest'
import type { atlasAttachments, atlasReplyDrafts, SenderAuth } from '#db/schema/atlas'
import { draftSteps, failedSpawnStep, lessonStep, queuedStep, scannedStep, type SpawnRow } from '../../core/timeline-row-steps'
import { TimelineStep, type TimelineStepView } from '../../core/timeline-schema'
import { catalog, expectSaid } from '#tests/helpers/catalogs'
import { admittedStep, auditStep, authenticatedStep, recapStep, type AuditRow, type StepContext } from '../../core/timeline-steps'

const SPAWN = '0b8c6c3e-2f1d-4a7b-9a51-3a1f0c1d2e3f'
const AT = new Date('2026-12-01T10:00:00Z')
const context: StepContext = { tenants: new Map([['t-1', 'Acme']]), spawnAgents: new Map([[SPAWN, 'integrator']]) }
let next = 1
const entry = (action: string, details: Record<string, unknown> = {}, actor = 'atlas-collect'): AuditRow => ({ id: next++, at: AT, action, actor, details })

/** Trail entries that, between them, reach every branch of the audit steps. */
const ENTRIES: AuditRow[] = [
  entry('received', { mailbox: 'INBOX', attachments: 2 }),
  entry('received', {}),
  entry('quarantined', { reason: 'too large' }),
  entry('blocked_unsafe', { reason: 'EICAR' }),
  entry('ocr_extracted', { characters: 120, images: 2 }),
  entry('classified', { intent: 'run', confidence: 0.9, tenantId: 't-1', reasoning: 'a bug report', provider: 'mistral', model: 'small' }),
  entry('classified', { intent: 'noise', model: 'small' }),
  entry('classified', { intent: 'question', confidence: 0.5, reasoning: 'asks' }),
  entry('classified', { tenantId: 't-1' }),
  entry('classification_failed', { reason: 'timeout', attempt: 1, maxAttempts: 3 }),
  entry('classification_uncertain'),
  entry('noise_override_founder_attachment'),
  entry('existing_client_guard'),
  entry('awaiting_approval', { reason: 'unknown sender' }),
  entry('spawn_approved', { by: 'ops@studio.example', note: 'go' }),
  entry('spawn_rejected', {}, 'ops@studio.example'),
  entry('materialised', { kind: 'chantier', id: 'c-1', action: 'created', on: 'approval' }),
  entry('materialised', { kind: 'run', id: 'r-1', action: 'kept' }),
  entry('materialised', { kind: 'question', id: 'q-1', action: 'created' }),
  entry('materialised', { kind: 'negociation', id: 'n-1', action: 'created' }),
  entry('materialised', { kind: 'conseil', id: 'k-1', action: 'created' }),
  entry('chantier_confirmed', { chantierId: 'c-1' }),
  entry('chantier_promoted', { chantierId: 'c-1' }),
  entry('chantier_rejected', { chantierId: 'c-1', reason: 'duplicate' }),
  entry('record_resolved', { kind: 'question', id: 'q-1' }),
  entry('record_cancelled', { kind: 'run', id: 'r-1' }),
  entry('spawn_started', { spawnId: SPAWN, iteration: 1, host: 'box-1', model: 'sonnet' }),
  entry('spawn_started', { spawnId: SPAWN, iteration: 2, host: 'box-1' }),
  entry('spawn_started', { spawnId: SPAWN, model: 'sonnet' }),
  entry('spawn_started', { spawnId: SPAWN }),
  entry('spawn_completed', { spawnId: SPAWN, iteration: 1, status: 'ok', commits: ['a'], costUsd: 0.25 }),
  entry('spawn_completed', { spawnId: SPAWN, iteration: 2, status: 'blocked' }),
  entry('spawn_failed', { spawnId: SPAWN, iteration: 1, reason: 'no binary' }),
  entry('spawn_failed', { spawnId: SPAWN, reason: 'worker_lost', next: 'back to classified' }),
  entry('deployed', { spawnId: SPAWN, ok: true, deploy: 'default', durationMs: 4200 }),
  entry('deployed', { spawnId: SPAWN, ok: false }),
  entry('qa_passed', { spawnId: SPAWN, routes: ['/', '/menu'] }),
  entry('qa_passed', { spawnId: SPAWN }),
  entry('qa_failed', { spawnId: SPAWN, errors: ['a', 'b'] }),
  entry('escalated', { reason: 'three failures' }),
  entry('actioned', { spawnId: SPAWN, intent: 'run', qa: 'passed', summary: 'sent to team@studio.example' }),
  entry('actioned', { spawnId: SPAWN, summary: 'not sent: ATLAS_SMTP_HOST is not set' }),
  entry('lesson_recorded', { spawnId: SPAWN, lessonId: 12, kind: 'victory', title: 'Cache the menu' }),
  entry('lesson_recorded', { lessonId: 13, kind: 'scar' }),
  entry('reclassify_requested', { previousStatus: 'escalated' }),
  entry('mail_refused_external', { refused: ['x@elsewhere.example'] }),
  entry('some_future_action'),
]

const AUTH: SenderAuth = { verdict: 'pass', domain: 'acme.example', reasons: [], flags: [], results: { dkim: 'pass', spf: 'pass', dmarc: 'pass', arc: 'none', trusted: [] }, checkedAt: '' }
const spawn = (fields: Partial<SpawnRow>): SpawnRow => ({
  id: SPAWN, iteration: 1, status: 'failed', outcome: null, reason: null, queuedAt: AT, queuedBy: 'atlas-collect', endedAt: null, taskId: null, agentCodename: null, carriedErrors: null, ...fields,
})
const attachment = (verdict: string, fields: Record<string, unknown> = {}) =>
  ({ messageId: 7, position: 1, filename: 'a.pdf', verdict, signature: null, scanner: 'clamd', scannedAt: AT, ...fields }) as unknown as typeof atlasAttachments.$inferSelect
const draft = (status: string, fields: Record<string, unknown> = {}) =>
  ({ id: next++, messageId: 7, body: 'Hello', status, createdBy: 'atlas-spawn-worker', createdAt: AT, updatedAt: AT, sentBy: null, sentAt: null, ...fields }) as typeof atlasReplyDrafts.$inferSelect
const lesson = (kind: 'scar' | 'victory', agent: string | null) => ({ lessonId: next++, kind, title: 'Mind the cache', agent, importance: null, createdAt: AT.toISOString(), recordedBy: null })

function everyStep(): TimelineStepView[] {
  const audit = ENTRIES.map(row => auditStep(row, context)).filter(step => step !== null)
  return [
    ...audit,
    ...ENTRIES.map(recapStep).filter(step => step !== null),
    admittedStep(audit.find(step => step.kind === 'classified')!, entry('classified'), 'known client'),
    authenticatedStep(ENTRIES[0]!, null),
    authenticatedStep(ENTRIES[0]!, AUTH),
    authenticatedStep(ENTRIES[0]!, { ...AUTH, domain: null }),
    authenticatedStep(ENTRIES[0]!, { ...AUTH, verdict: 'fail', flags: ['lookalike domain'] }),
    authenticatedStep(ENTRIES[0]!, { ...AUTH, verdict: 'none' }),
    scannedStep([attachment('clean')])!,
    scannedStep([attachment('clean'), attachment('infected', { signature: 'EICAR' })])!,
    queuedStep(spawn({ agentCodename: 'integrator', taskId: 'task-1' })),
    queuedStep(spawn({ iteration: 2, carriedErrors: ['e'] as never })),
    queuedStep(spawn({ iteration: 3, agentCodename: 'integrator', carriedErrors: ['e', 'f'] as never })),
    queuedStep(spawn({ iteration: 4 })),
    failedSpawnStep(spawn({ status: 'lost' })),
    failedSpawnStep(spawn({ outcome: 'worker_stopped', reason: 'stopped' })),
    ...draftSteps(draft('discarded')),
    ...draftSteps(draft('draft')),
    ...draftSteps(draft('sent', { sentAt: AT, sentBy: 'ops@studio.example' })),
    lessonStep(lesson('victory', 'integrator'), spawn({})),
    lessonStep(lesson('scar', null), spawn({})),
  ]
}

const EN = catalog('en')

describe('the timeline in the reader\'s language', () => {
  const steps = everyStep()
  const said = steps.flatMap(step => [
    ...(step.titleKey ? [{ key: step.titleKey, values: step.titleValues, english: step.title }] : []),
    ...(step.detailKey ? [{ key: step.detailKey, values: step.detailValues, english: step.detail }] : []),
    ...step.links.flatMap(link => (link.labelKey ? [{ key: link.labelKey, values: link.labelValues, english: link.label }] : [])),
  ])

  it('answers in the shape the schema says', () => {
    for (const step of steps) expect(TimelineStep.strict().parse(step)).toEqual(step)
  })

  it('gives, beside each English text it words itself, a key both catalogs hold whose English is that text', () => {
    expectSaid(said)
  })

  it('emits every step message of the catalog in some case (the cases reach every branch)', () => {
    const emitted = new Set(said.map(({ key }) => key))
    const worded = [...EN.keys()].filter(key => key.startsWith('atlas.timeline.steps.'))
    expect(worded.filter(key => !emitted.has(key))).toEqual([])
  })

  it('keys every title, and leaves keyless only the texts written elsewhere (a reason, a note, a name, a body)', () => {
    expect(steps.filter(step => !step.titleKey).map(step => step.title)).toEqual(['some future action'])
    const keyless = steps.filter(step => step.detail !== null && !step.detailKey).map(step => step.detail)
    expect(keyless).toEqual(expect.arrayContaining(['too large', 'EICAR', 'go', 'duplicate', 'no binary', 'default', 'three failures', 'x@elsewhere.example', 'Hello', 'known client']))
    expect(steps.flatMap(step => step.links).filter(link => !link.labelKey)).toEqual([])
  })
})
