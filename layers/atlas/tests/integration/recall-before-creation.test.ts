// Recall before creation (issue 15, Deliver 4) through the real pipeline on both databases:
// a classified message that creates a work record runs the memory's pre-creation recall and
// stores its hits with the record; the message page's detail carries them; a recall that
// cannot embed falls back to the lexical arm, and one that fails is stored with its reason
// without stopping the record's creation. The mails come from the founder, signed (admitted
// at once); a stranger's has no record, hence no recall, until its approval creates both.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnLessons } from '#db/schema/learn'
import { hubAudit } from '#db/schema/hub'
import { workChantiers, workRecalls } from '#db/schema/work'
import { CHANTIER_CONFIRMED_ACTION, confirmChantier } from '#layers/worksites/core/confirm'
import { reindexScar } from '#layers/memory/core/vectors/reindex-scar'
import { offlineEmbedder, rateLimited } from '#layers/memory/tests/fixtures/embedders'
import { recallForRecord } from '#layers/worksites/core/pre-creation-recall'
import { getMessageDetail } from '../../core/queries'
import { decideApproval, recallApproved } from '../../core/approval'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { deliver, inboxOf, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'
import { createZone } from '../fixtures/sender-auth'
import type { Embedder } from '#layers/memory/core/vectors/embedder'

const FOUNDER = 'alex@studio.example'
const zone = createZone()
const signStudio = zone.dkimKey('studio.example')

describeOnBothDatabases('Recall before creation', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
  })
  afterAll(async () => {
    await model.close()
  })
  beforeEach(() => model.reset())

  async function scar(title: string, description: string) {
    const { db } = database()
    const [row] = await db.insert(learnLessons).values({ kind: 'failure', title, description, importance: 8 }).returning()
    expect((await reindexScar({ db, embedder: offlineEmbedder(db) }, row!.id)).status).toBe('indexed')
    return row!
  }

  async function one(subject: string, text: string, intent: string, embedder?: Embedder, sender: 'founder' | 'stranger' = 'founder') {
    const { db } = database()
    model.answer(json(intent, 0.9, 'scripted'))
    const ai = model.facade(db)
    const raw = sender === 'founder' ? await signStudio(await compose({ from: FOUNDER, subject, text })) : await compose({ subject, text })
    const delivery = await deliver(db, ai, [raw], {
      config: testConfig({ ATLAS_FOUNDER_EMAILS: FOUNDER }),
      embedder,
      resolver: zone.resolver,
    })
    await ai.flush()
    return { ...delivery, id: delivery.stored[0]!.messageRowId }
  }

  it('stores the related scars with a new chantier, and the message page shows them', async () => {
    const { db } = database()
    const related = await scar('Migration de la boutique Shopify sans redirections', 'Les anciennes URL de la boutique renvoyaient 404 après la migration: toujours écrire les redirections 301.')
    await scar('Facture en double', 'Le module de facturation envoyait deux factures.')
    const { id, logs } = await one('Migration de notre boutique Shopify', 'Nous voulons migrer la boutique vers Nuxt, avec les redirections.', 'chantier', offlineEmbedder(db))
    const inbox = await inboxOf(db, id)
    expect(inbox.materialisedKind).toBe('chantier')
    const [stored] = await db.select().from(workRecalls).where(and(eq(workRecalls.kind, 'chantier'), eq(workRecalls.recordId, inbox.materialisedId!)))
    expect(stored).toMatchObject({ error: null, modeUsed: 'hybrid' })
    expect(stored!.query).toMatch(/^Migration de notre boutique Shopify Nous voulons migrer/)
    expect(stored!.hits[0]).toMatchObject({ rank: 1, sourceType: 'scar', sourceId: String(related.id), title: related.title })
    expect(logs.some(line => line.startsWith('[recall] before creating'))).toBe(true)
    const detail = await getMessageDetail(db, id)
    expect(detail?.recall?.hits.map(h => h.sourceId)).toContain(String(related.id))
    // The pre-creation recall moved the scar's recall counter (it was served to a person).
    await expect
      .poll(async () => (await db.select().from(learnLessons).where(eq(learnLessons.id, related.id)))[0]!.recallCount)
      .toBeGreaterThan(0)
  })

  it('lets a person confirm the chantier draft once, audited with what was recalled', async () => {
    const { db } = database()
    const related = await scar('Refonte du blog sans plan de redirection', 'Le trafic SEO du blog a chuté après la refonte: prévoir les redirections.')
    const { id } = await one('Refonte de notre blog', 'Nous voulons refaire le blog, avec un nouveau design.', 'chantier', offlineEmbedder(db))
    const chantierId = (await inboxOf(db, id)).materialisedId!
    const confirmed = await confirmChantier(db, chantierId, 'op@studio.test')
    expect(confirmed).toMatchObject({ ok: true, status: 'planned', by: 'op@studio.test' })
    expect((await db.select().from(workChantiers).where(eq(workChantiers.id, chantierId)))[0]!.status).toBe('planned')
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, CHANTIER_CONFIRMED_ACTION), eq(hubAudit.target, `work_chantier:${chantierId}`)))
    expect((audit!.details as { recalled: string[] }).recalled).toContain(`scar:${related.id}`)
    expect((await getMessageDetail(db, id))?.audit.map(a => a.action)).toContain('chantier_confirmed')
    expect(await confirmChantier(db, chantierId, 'op@studio.test')).toEqual({ ok: false, code: 'not_draft', status: 'planned' })
    expect(await confirmChantier(db, '00000000-0000-4000-8000-000000000000', 'op@studio.test')).toEqual({ ok: false, code: 'not_found' })
  })

  it('falls back to the lexical arm when embeddings are refused, and never blocks the record', async () => {
    const { db } = database()
    const related = await scar('Certificat TLS expiré sur le site vitrine', 'Le certificat du site vitrine a expiré un dimanche: renouvellement automatique à vérifier.')
    const { id } = await one('Certificat TLS du site vitrine', 'Le certificat va expirer, pouvez-vous le renouveler ?', 'run', rateLimited(offlineEmbedder(db)))
    const inbox = await inboxOf(db, id)
    expect(inbox).toMatchObject({ materialisedKind: 'run' })
    const [stored] = await db.select().from(workRecalls).where(eq(workRecalls.recordId, inbox.materialisedId!))
    expect(stored).toMatchObject({ kind: 'run', modeUsed: 'lex', error: null })
    expect(stored!.hits.map(h => h.sourceId)).toContain(String(related.id))

    // A recall that fails outright is stored with its reason; the record is untouched.
    const broken: Embedder = { target: async () => ({ provider: 'x', model: 'y' }), embed: async () => await new Promise(() => {}) }
    const failed = await recallForRecord({ db, embedder: broken, budgetMs: 50 }, { kind: 'run', id: inbox.materialisedId!, title: 'Certificat TLS du site vitrine' })
    expect(failed).toMatchObject({ hits: [], modeUsed: null, error: expect.stringMatching(/longer than 50 ms/) })
    expect(await db.select().from(workRecalls).where(eq(workRecalls.recordId, inbox.materialisedId!))).toHaveLength(1)
  })

  it('runs no recall for a stranger\'s mail waiting for approval: its approval creates the record, then recalls for it', async () => {
    const { db } = database()
    const related = await scar('Formulaire de devis sans anti-spam', 'Le formulaire de devis recevait des centaines de spams: ajouter un captcha.')
    const before = (await db.select().from(workRecalls)).length
    const { id } = await one('Notre formulaire de devis', 'Le formulaire de devis reçoit du spam.', 'run', offlineEmbedder(db), 'stranger')
    expect(await inboxOf(db, id)).toMatchObject({ status: 'awaiting_approval', materialisedKind: null })
    expect((await db.select().from(workRecalls)).length).toBe(before)
    expect((await getMessageDetail(db, id))?.recall).toBeNull()

    const approved = await decideApproval(db, id, 'approve', 'op@studio.test')
    expect(approved).toMatchObject({ ok: true, materialised: { kind: 'run', action: 'created' } })
    const logs: string[] = []
    await recallApproved({ db, embedder: async () => offlineEmbedder(db), log: line => void logs.push(line) }, approved)
    const runId = (await inboxOf(db, id)).materialisedId!
    const [stored] = await db.select().from(workRecalls).where(and(eq(workRecalls.kind, 'run'), eq(workRecalls.recordId, runId)))
    expect(stored).toMatchObject({ error: null, modeUsed: 'hybrid' })
    expect(stored!.hits.map(h => h.sourceId)).toContain(String(related.id))
    expect((await getMessageDetail(db, id))?.recall?.hits.map(h => h.sourceId)).toContain(String(related.id))
    // A refused approval recalls nothing more.
    const again = await decideApproval(db, id, 'approve', 'op@studio.test')
    expect(again).toEqual({ ok: false, code: 'not_awaiting_approval', status: 'classified' })
    await recallApproved({ db, embedder: async () => offlineEmbedder(db), log: line => void logs.push(line) }, again)
    expect((await db.select().from(workRecalls)).length).toBe(before + 1)
  })

  it('runs no recall for noise, nor without an embedder (tests and tools that do not ask for it)', async () => {
    const { db } = database()
    const before = (await db.select().from(workRecalls)).length
    const noise = await one('Newsletter de la semaine', 'Les nouveautés de la semaine.', 'noise', offlineEmbedder(db))
    expect((await inboxOf(db, noise.id)).materialisedKind).toBeNull()
    const bare = await one('Corriger le pied de page', 'Le pied de page est cassé.', 'run')
    expect((await inboxOf(db, bare.id)).materialisedKind).toBe('run')
    expect((await db.select().from(workRecalls)).length).toBe(before)
    expect((await getMessageDetail(db, bare.id))?.recall).toBeNull()
  })
})
