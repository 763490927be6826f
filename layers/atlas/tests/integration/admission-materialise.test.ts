// Nothing materialised before admission (issue 33, Deliver 4), on both databases: a mail that
// waits for a person's approval keeps its classification but has no work record — no row in
// any registry for its message, no link, no `materialised` audit —; approving it creates
// exactly one (approved twice, or twice at once, still one); rejecting it creates none, and
// cancels a record an earlier classification left.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import type { Db } from '#db/client'
import { atlasAudit, atlasInbox } from '#db/schema/atlas'
import { hubAudit } from '#db/schema/hub'
import { materialiseRecord, WORK_KINDS, WORK_TABLES } from '#layers/worksites/core/registries'
import { decideApproval } from '../../core/approval'
import { getMessageDetail } from '../../core/queries'
import { requestReclassification } from '../../core/reclassify'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { actionsOf, auditOf, deliver, inboxOf, messageOf, reprocess, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'

const OPERATOR = 'operator@studio.example'

/** Every record of every work registry whose source is this message. */
async function recordsOf(db: Db, messageRowId: number) {
  const found: Array<{ kind: string, id: string, status: string }> = []
  for (const kind of WORK_KINDS) {
    const table = WORK_TABLES[kind]
    const rows = await db.select({ id: table.id, status: table.status }).from(table).where(eq(table.sourceMessageId, messageRowId))
    found.push(...rows.map(row => ({ kind, ...row })))
  }
  return found
}

async function materialisedAudits(db: Db, messageRowId: number) {
  return await db.select().from(atlasAudit).where(and(eq(atlasAudit.messageId, messageRowId), eq(atlasAudit.action, 'materialised')))
}

describeOnBothDatabases('Atlas: nothing materialised before admission', (database) => {
  let model: ScriptedModel
  const config = testConfig()

  beforeAll(async () => {
    model = await startScriptedModel()
  })
  afterAll(async () => {
    await model.close()
  })
  beforeEach(() => model.reset())

  /** A stranger's mail (unsigned, an unknown prospect), classified as `intent`. */
  async function strangerMail(subject: string, intent: string): Promise<number> {
    const { db } = database()
    model.answer(json(intent, 0.92, 'scripted'))
    const ai = model.facade(db)
    const delivery = await deliver(db, ai, [await compose({ subject, text: `Le détail de « ${subject} ».` })], { config })
    await ai.flush()
    return delivery.stored[0]!.messageRowId
  }

  it('a stranger\'s mail waiting for approval keeps its classification and has no work record, whatever its intent', async () => {
    const { db } = database()
    for (const intent of ['run', 'chantier', 'question', 'negociation']) {
      const id = await strangerMail(`Demande ${intent} d'un inconnu`, intent)
      const inbox = await inboxOf(db, id)
      expect(inbox).toMatchObject({ status: 'awaiting_approval', admission: 'awaiting', needsHuman: true, intent, materialisedKind: null, materialisedId: null })
      expect(inbox.confidence).toBeCloseTo(0.92)
      expect(inbox.statusReason).toMatch(/^waiting for an operator's approval: the sender claire@prospect\.example is not authenticated \(verdict is none\)/)
      expect(await recordsOf(db, id)).toEqual([])
      expect(await materialisedAudits(db, id)).toEqual([])
      expect(await actionsOf(db, id)).toEqual(['received', 'classified', 'awaiting_approval'])
      // What the hub's message page reads: the classification, no record, no recall.
      const detail = await getMessageDetail(db, id)
      expect(detail).toMatchObject({ inbox: { status: 'awaiting_approval', intent }, materialised: null, recall: null })
    }
  })

  it('approving creates the record once: a second approval is refused and leaves the one record', async () => {
    const { db } = database()
    const id = await strangerMail('Le formulaire de contact renvoie une 500', 'run')
    const approved = await decideApproval(db, id, 'approve', OPERATOR)
    expect(approved).toMatchObject({ ok: true, messageId: id, status: 'classified', by: OPERATOR, materialised: { kind: 'run', action: 'created' } })
    const inbox = await inboxOf(db, id)
    expect(inbox).toMatchObject({ status: 'classified', admission: 'approved', admissionBy: OPERATOR, needsHuman: false, intent: 'run', materialisedKind: 'run' })
    expect(approved.ok && approved.materialised!.id).toBe(inbox.materialisedId)
    const records = await recordsOf(db, id)
    expect(records).toEqual([{ kind: 'run', id: inbox.materialisedId!, status: 'open' }])
    const [run] = await db.select().from(WORK_TABLES.run).where(eq(WORK_TABLES.run.id, inbox.materialisedId!))
    expect(run).toMatchObject({ sourceMessageId: id, title: 'Le formulaire de contact renvoie une 500', requesterEmail: 'claire@prospect.example', createdBy: OPERATOR })
    // The trail: the approval, then the record it created, by the same person.
    expect(await actionsOf(db, id)).toEqual(['received', 'classified', 'awaiting_approval', 'spawn_approved', 'materialised'])
    const [materialised] = await materialisedAudits(db, id)
    expect(materialised).toMatchObject({ actor: OPERATOR, details: { kind: 'run', id: inbox.materialisedId, action: 'created', on: 'approval' } })

    const again = await decideApproval(db, id, 'approve', 'someone-else@studio.example')
    expect(again).toEqual({ ok: false, code: 'not_awaiting_approval', status: 'classified' })
    expect(await recordsOf(db, id)).toEqual(records)
    expect(await materialisedAudits(db, id)).toHaveLength(1)
    expect(await inboxOf(db, id)).toMatchObject({ admissionBy: OPERATOR, materialisedId: inbox.materialisedId })
    // Rejecting after the approval is refused too: the record stands.
    expect(await decideApproval(db, id, 'reject', OPERATOR)).toEqual({ ok: false, code: 'not_awaiting_approval', status: 'classified' })
    expect(await recordsOf(db, id)).toEqual(records)
  })

  it('two approvals at once create one record: one wins, the other finds the message no longer waiting', async () => {
    const { db } = database()
    for (const intent of ['chantier', 'question']) {
      const id = await strangerMail(`Deux opérateurs, un ${intent}`, intent)
      const results = await Promise.all([decideApproval(db, id, 'approve', 'one@studio.example'), decideApproval(db, id, 'approve', 'two@studio.example')])
      const won = results.filter(result => result.ok)
      expect(won, JSON.stringify(results)).toHaveLength(1)
      expect(results.filter(result => !result.ok)).toEqual([{ ok: false, code: 'not_awaiting_approval', status: 'classified' }])
      const inbox = await inboxOf(db, id)
      expect(await recordsOf(db, id)).toEqual([{ kind: intent, id: inbox.materialisedId!, status: intent === 'chantier' ? 'draft' : 'open' }])
      expect(await materialisedAudits(db, id)).toHaveLength(1)
      expect((await auditOf(db, id)).filter(a => a.action === 'spawn_approved')).toHaveLength(1)
      expect(await db.select().from(hubAudit).where(and(eq(hubAudit.target, `atlas_message:${id}`), eq(hubAudit.action, 'atlas.approve')))).toHaveLength(1)
    }
  })

  it('an approval racing a rejection: exactly one decision, and a record only if the approval won', async () => {
    const { db } = database()
    const id = await strangerMail('Approuver ou rejeter', 'run')
    const [approve, reject] = await Promise.all([decideApproval(db, id, 'approve', 'one@studio.example'), decideApproval(db, id, 'reject', 'two@studio.example')])
    expect([approve.ok, reject.ok].filter(Boolean)).toHaveLength(1)
    const inbox = await inboxOf(db, id)
    if (approve.ok) {
      expect(inbox).toMatchObject({ status: 'classified', materialisedKind: 'run' })
      expect(await recordsOf(db, id)).toEqual([{ kind: 'run', id: inbox.materialisedId!, status: 'open' }])
    }
    else {
      expect(inbox).toMatchObject({ status: 'rejected', materialisedKind: null })
      expect(await recordsOf(db, id)).toEqual([])
    }
  })

  it('rejecting a waiting mail creates no record, and nothing starts from it later', async () => {
    const { db } = database()
    const id = await strangerMail('Refonte complète du site', 'chantier')
    const rejected = await decideApproval(db, id, 'reject', OPERATOR, 'not a client')
    expect(rejected).toMatchObject({ ok: true, status: 'rejected', materialised: null })
    expect(await inboxOf(db, id)).toMatchObject({ status: 'rejected', admission: 'rejected', statusReason: `rejected by ${OPERATOR}: not a client`, materialisedKind: null, materialisedId: null })
    expect(await recordsOf(db, id)).toEqual([])
    expect(await materialisedAudits(db, id)).toEqual([])
    expect(await decideApproval(db, id, 'approve', OPERATOR)).toEqual({ ok: false, code: 'not_awaiting_approval', status: 'rejected' })
    expect(await recordsOf(db, id)).toEqual([])
  })

  it('a waiting mail re-classified still has no record; its approval creates the one its new intent names', async () => {
    const { db } = database()
    const id = await strangerMail('Refonte ou correctif ?', 'run')
    expect((await requestReclassification(db, id, OPERATOR)).ok).toBe(true)
    model.answer(json('chantier', 0.9))
    await reprocess(db, model.facade(db), [(await inboxOf(db, id)).id], { config })
    expect(await inboxOf(db, id)).toMatchObject({ status: 'awaiting_approval', intent: 'chantier', materialisedKind: null })
    expect(await recordsOf(db, id)).toEqual([])
    expect(await decideApproval(db, id, 'approve', OPERATOR)).toMatchObject({ ok: true, materialised: { kind: 'chantier', action: 'created' } })
    const inbox = await inboxOf(db, id)
    expect(await recordsOf(db, id)).toEqual([{ kind: 'chantier', id: inbox.materialisedId!, status: 'draft' }])
  })

  it('a record an earlier classification left: rejecting cancels it, approving keeps it without a second', async () => {
    const { db } = database()
    // Before this rule, a waiting mail had its record already: one such row for each decision.
    const leftovers: Array<{ id: number, recordId: string }> = []
    for (const subject of ['Ancien en attente A', 'Ancien en attente B']) {
      const id = await strangerMail(subject, 'question')
      const record = await materialiseRecord(db, { kind: 'question', message: await messageOf(db, id), tenantId: null, actor: 'atlas-collect' })
      await db.update(atlasInbox).set({ materialisedKind: 'question', materialisedId: record.id }).where(eq(atlasInbox.messageId, id))
      leftovers.push({ id, recordId: record.id })
    }
    const [rejectedOne, approvedOne] = leftovers as [typeof leftovers[number], typeof leftovers[number]]
    expect(await decideApproval(db, rejectedOne.id, 'reject', OPERATOR)).toMatchObject({ ok: true, status: 'rejected', materialised: null })
    expect(await inboxOf(db, rejectedOne.id)).toMatchObject({ materialisedKind: null, materialisedId: null })
    expect(await recordsOf(db, rejectedOne.id)).toEqual([{ kind: 'question', id: rejectedOne.recordId, status: 'cancelled' }])

    expect(await decideApproval(db, approvedOne.id, 'approve', OPERATOR)).toMatchObject({ ok: true, materialised: { kind: 'question', id: approvedOne.recordId, action: 'kept' } })
    expect(await inboxOf(db, approvedOne.id)).toMatchObject({ materialisedKind: 'question', materialisedId: approvedOne.recordId })
    expect(await recordsOf(db, approvedOne.id)).toEqual([{ kind: 'question', id: approvedOne.recordId, status: 'open' }])
    expect(await materialisedAudits(db, approvedOne.id)).toEqual([])
  })

  it('a stranger\'s conseil does not wait (it never starts an agent): its record is written with the classification', async () => {
    const { db } = database()
    const id = await strangerMail('Votre avis sur ce contrat', 'conseil')
    const inbox = await inboxOf(db, id)
    expect(inbox).toMatchObject({ status: 'classified', admission: null, materialisedKind: 'conseil' })
    expect(await recordsOf(db, id)).toEqual([{ kind: 'conseil', id: inbox.materialisedId!, status: 'open' }])
    expect(await decideApproval(db, id, 'approve', OPERATOR)).toEqual({ ok: false, code: 'not_awaiting_approval', status: 'classified' })
  })
})
