// The skills library on both databases (issue 21 Deliver 1–2): a skill is a document (every
// save a version, a stale save refused), access is not activation (Discover → "Enable for
// me" → My skills), sorted by real use, built-ins enabled until disabled and never deleted,
// the promotion of a learning-loop proposal writes version 1.
import { eq } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { skillVersions } from '#db/schema/skills'
import { promoteSkillProposal } from '#layers/learning/core/skills/proposals'
import { BUILT_IN_SKILLS, seedBuiltInSkills } from '../../core/builtins'
import { createSkill, deleteSkill, enabledSkills, listLibrary, recordSkillRuns, saveSkill, setEnabled, skillView } from '../../core/library'

const ANA = { email: 'ana-skills@studio.test', role: 'operator' as const }
const BOB = { email: 'bob-skills@studio.test', role: 'operator' as const }
const FOUNDER = { email: 'founder-skills@studio.test', role: 'founder' as const }

describeOnBothDatabases('skills library', (database) => {
  it('keeps every save as a version with its files, refuses a save over a newer version', async () => {
    const { db } = database()
    const skill = await createSkill(db, ANA, { name: 'release-checklist', description: 'Checklist before a release', body: '1. Tests green.\n', files: [{ path: 'list.md', content: 'a', shareable: true }, { path: 'secret-notes.md', content: 'internal', shareable: false }] })
    const saved = await saveSkill(db, ANA, skill.id, { description: 'Checklist before a release or a deploy', body: '1. Tests green.\n2. Changelog.\n', baseVersion: 1, note: 'changelog', files: [{ path: 'list.md', content: 'b', shareable: true }] })
    expect(saved.versions.map(v => [v.version, v.note])).toEqual([[2, 'changelog'], [1, null]])
    expect(saved.skill).toMatchObject({ version: 2, description: 'Checklist before a release or a deploy' })
    expect(saved.files.map(f => [f.path, f.content])).toEqual([['list.md', 'b']])
    await expect(saveSkill(db, ANA, skill.id, { description: 'x', body: 'stale', baseVersion: 1 })).rejects.toMatchObject({ code: 'version_conflict', status: 409 })
    await expect(saveSkill(db, BOB, skill.id, { description: 'x', body: 'not mine' })).rejects.toMatchObject({ code: 'forbidden', status: 403 })
    await expect(createSkill(db, BOB, { name: 'release-checklist', description: 'd', body: 'b' })).rejects.toMatchObject({ code: 'skill_exists', status: 409 })
    await expect(createSkill(db, BOB, { name: 'Bad Name', description: 'd', body: 'b' })).rejects.toThrow(/lowercase/)
    await expect(createSkill(db, BOB, { name: 'escape', description: 'd', body: 'b', files: [{ path: '../etc/passwd', content: 'x', shareable: true }] })).rejects.toThrow(/relative path/)
    expect((await skillView(db, ANA, skill.id)).versions).toHaveLength(2)
  })

  it('separates access from activation: Discover, "Enable for me", My skills, sorted by real use', async () => {
    const { db } = database()
    const a = await createSkill(db, ANA, { name: 'write-okrs', description: 'Draft quarterly OKRs', body: 'b' })
    const b = await createSkill(db, ANA, { name: 'plan-a-sprint', description: 'Plan a sprint', body: 'b' })
    const hidden = await createSkill(db, ANA, { name: 'ana-private', description: 'Mine only', body: 'b', visibility: 'private' })
    let bob = await listLibrary(db, BOB.email)
    expect(bob.mine.map(s => s.name)).not.toContain('write-okrs')
    expect(bob.discover.map(s => s.name)).toEqual(expect.arrayContaining(['write-okrs', 'plan-a-sprint']))
    expect([...bob.mine, ...bob.discover].map(s => s.name)).not.toContain('ana-private')
    await expect(skillView(db, BOB, hidden.id)).rejects.toMatchObject({ status: 404 })
    expect((await enabledSkills(db, BOB.email)).map(s => s.name)).not.toContain('write-okrs')
    await setEnabled(db, BOB.email, a.id, true)
    await setEnabled(db, BOB.email, b.id, true)
    await recordSkillRuns(db, '00000000-0000-4000-8000-000000000001', BOB.email, [{ id: b.id, mode: 'auto' }, { id: b.id, mode: 'forced' }])
    bob = await listLibrary(db, BOB.email)
    expect(bob.mine.map(s => s.name).slice(0, 2)).toEqual(['plan-a-sprint', 'write-okrs'])
    expect(bob.mine[0]).toMatchObject({ uses: 2, enabled: true })
    expect((await enabledSkills(db, BOB.email)).map(s => s.name)).toEqual(expect.arrayContaining(['write-okrs', 'plan-a-sprint']))
    await setEnabled(db, BOB.email, a.id, false)
    expect((await listLibrary(db, BOB.email)).discover.map(s => s.name)).toContain('write-okrs')
  })

  it('ships built-ins enabled for everyone, disableable per person, never deleted; seeding twice is harmless', async () => {
    const { db } = database()
    expect((await seedBuiltInSkills(db)).inserted).toBe(BUILT_IN_SKILLS.length)
    expect((await seedBuiltInSkills(db)).inserted).toBe(0)
    const library = await listLibrary(db, BOB.email)
    const recap = library.mine.find(s => s.name === 'write-a-recap')!
    expect(recap).toMatchObject({ builtIn: true, enabled: true })
    await setEnabled(db, BOB.email, recap.id, false)
    expect((await listLibrary(db, BOB.email)).discover.map(s => s.name)).toContain('write-a-recap')
    expect((await listLibrary(db, ANA.email)).mine.map(s => s.name)).toContain('write-a-recap')
    await expect(deleteSkill(db, FOUNDER, recap.id)).rejects.toMatchObject({ code: 'built_in', status: 409 })
    expect((await skillView(db, ANA, recap.id)).canEdit).toBe(false)
  })

  it('the promotion of a learning-loop proposal creates version 1, enabled for the founder who promoted it', async () => {
    const { db } = database()
    const [proposal] = await db.insert(learnSkillProposals).values({ pattern: 'p', name: 'screenshot-before-deploy', description: 'Screenshot pages before a deploy', body: '1. Screenshot.', fingerprint: 'screenshot-before-deploy', proposedBy: 'tests' }).returning()
    const { skill } = await promoteSkillProposal(db, { id: proposal!.id, actor: FOUNDER.email })
    const versions = await db.select().from(skillVersions).where(eq(skillVersions.skillId, skill!.id))
    expect(versions.map(v => [v.version, v.body])).toEqual([[1, '1. Screenshot.']])
    expect((await listLibrary(db, FOUNDER.email)).mine.find(s => s.name === 'screenshot-before-deploy')).toMatchObject({ origin: 'proposal', enabled: true, version: 1 })
  })
})
