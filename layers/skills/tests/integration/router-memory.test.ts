// The skill router on the memory's index, on both databases (seed 003 §13.2, issue 21
// Deliver 3): the skills' name + description are `skill` chunks of mem_embeddings, kept on
// create / save / delete by the skill source of the vector sync; the router's candidates are
// the memory's hybrid recall (RRF k = 60, top 8) over a person's enabled skills only — never a
// disabled one, nor another person's private one — and the router test set's 60+ requests get
// the same decisions as the calibration (the thresholds are unchanged). A skill never surfaces
// in a plain memory recall.
import { and, eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { memEmbeddings } from '#db/schema/mem'
import { recall } from '#layers/memory/core/recall/engine'
import { counting, offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { createSkill, deleteSkill, saveSkill, setEnabled } from '../../core/library'
import { syncSkillIndex } from '../../core/memory-index'
import { skillRouterPort } from '../../core/port'
import { REQUESTS, SKILL_SET } from '../unit/router-set'

const PERSON = { email: 'router-memory@studio.test', role: 'operator' as const }
const OTHER = { email: 'router-other@studio.test', role: 'operator' as const }

interface Decision {
  branch: string
  kept: Array<{ name: string, mode: string }>
  candidates: Array<{ name: string, lexicalRank: number | null, vectorRank: number | null, rrf: number }>
}

describeOnBothDatabases('the skill router on the memory index', (database) => {
  const ids = new Map<string, number>()
  const route = async (request: string, email = PERSON.email) =>
    (await skillRouterPort(database().db, offlineEmbedder(database().db)).select({ email, request, forced: [] }))
      .decision as unknown as Decision

  beforeAll(async () => {
    const { db } = database()
    for (const skill of SKILL_SET) ids.set(skill.name, (await createSkill(db, PERSON, { name: skill.name, description: skill.description, body: `# ${skill.name}\n\nDo it.` })).id)
  })

  it('indexes every skill as a skill chunk of the memory (name + description), incrementally', async () => {
    const { db } = database()
    const embedder = offlineEmbedder(db)
    expect(await syncSkillIndex(db, embedder)).toMatchObject({ type: 'skill', documents: SKILL_SET.length, embedded: SKILL_SET.length, removed: 0 })
    expect(await syncSkillIndex(db, embedder)).toMatchObject({ embedded: 0, unchanged: SKILL_SET.length })
    const [chunk] = await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'skill'), eq(memEmbeddings.sourceId, String(ids.get('write-a-recap')))))
    expect(chunk).toMatchObject({ title: 'write-a-recap', content: expect.stringContaining('Write a recap of a meeting') })
    expect(chunk!.content).not.toContain('Do it.')
  })

  it('routes the router test set through the memory\'s recall with the calibrated decisions', async () => {
    const misses: string[] = []
    for (const [request, expected, branch] of REQUESTS) {
      const decision = await route(request)
      const got = { branch: decision.branch, kept: decision.kept.map(k => k.name) }
      if (got.branch !== branch || JSON.stringify(got.kept) !== JSON.stringify(expected)) misses.push(`${request} → ${JSON.stringify(got)} (expected ${branch} ${JSON.stringify(expected)})`)
      expect(decision.candidates.length).toBeLessThanOrEqual(8)
      // Candidates carry the memory recall's fused ranks (RRF k = 60: at most 2/61).
      for (const candidate of decision.candidates) expect(candidate.rrf).toBeLessThanOrEqual(2 / 61 + 1e-4)
    }
    expect(misses).toEqual([])
  })

  it('recalls only the person\'s enabled skills: a disabled one, another\'s private one, a deleted one are never candidates', async () => {
    const { db } = database()
    await createSkill(db, OTHER, { name: 'secret-recap-method', description: 'Write a recap of a meeting or call: decisions, owners, next steps, the secret way.', body: 'Secret.', visibility: 'private' })
    expect((await route('Write a recap of the meeting with decisions and next steps')).kept.map(k => k.name)).toEqual(['write-a-recap'])
    expect((await route('Write a recap of the meeting with decisions and next steps', OTHER.email)).kept.map(k => k.name)).toEqual(['secret-recap-method'])
    // The candidates come from the memory's recall: the request is embedded as a query, once per routing.
    const embedder = counting(offlineEmbedder(db))
    const port = skillRouterPort(db, embedder)
    await port.select({ email: PERSON.email, request: 'Write a recap of the meeting', forced: [] })
    const afterFirst = embedder.calls
    await port.select({ email: PERSON.email, request: 'Plan the next sprint from the backlog', forced: [] })
    expect(embedder.calls - afterFirst).toBe(1)
    await setEnabled(db, PERSON.email, ids.get('write-a-recap')!, false)
    const disabled = await route('Write a recap of the meeting with decisions and next steps')
    expect(disabled.candidates.map(c => c.name)).not.toContain('write-a-recap')
    expect(disabled.candidates.map(c => c.name)).not.toContain('secret-recap-method')
    await setEnabled(db, PERSON.email, ids.get('write-a-recap')!, true)
    // A save re-indexes the new description: the router finds the skill by its new words.
    await saveSkill(db, PERSON, ids.get('translate-to-english')!, { description: 'Translate a text into Klingon for the convention.', body: 'Qapla.' })
    expect((await route('Translate this text into Klingon')).kept.map(k => k.name)).toEqual(['translate-to-english'])
    const [chunk] = await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'skill'), eq(memEmbeddings.sourceId, String(ids.get('translate-to-english')))))
    expect(chunk!.content).toContain('Klingon')
    await deleteSkill(db, PERSON, ids.get('translate-to-english')!)
    expect((await route('Translate this text into Klingon')).candidates.map(c => c.name)).not.toContain('translate-to-english')
    expect(await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'skill'), eq(memEmbeddings.sourceId, String(ids.get('translate-to-english')))))).toEqual([])
  })

  it('keeps skills out of a plain memory recall (a private skill never leaks through it)', async () => {
    const { db } = database()
    const everything = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'secret recap method decisions owners', k: 20, readOnly: true })
    expect(everything.hits.filter(hit => hit.sourceType === 'skill')).toEqual([])
    const scoped = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'secret recap method decisions owners', k: 20, scope: 'skill', readOnly: true })
    expect(scoped.hits).toEqual([])
  })
})
