// SKILL.md round trip (issue 21 Done when): export → import into an EMPTY installation (a
// fresh database of the other kind too) → identical body, description and shareable files;
// the non-shareable file is absent from the bundle; a malformed front matter is refused
// naming the line; the downloaded copy's fingerprint gives a "newer version" badge once the
// skill changes.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestDatabase, describeOnBothDatabases, type TestDatabase } from '#tests/helpers/databases'
import { exportSkill, importSkill } from '../../core/exchange'
import { createSkill, listLibrary, saveSkill, skillView } from '../../core/library'
import { importBundle, parseSkillMd } from '../../core/skill-md'
import { readTar, writeTar } from '../../core/tar'

const ANA = { email: 'ana-md@studio.test', role: 'operator' as const }
const ZOE = { email: 'zoe-md@elsewhere.test', role: 'operator' as const }
const BODY = '# Write a recap\n\nDecisions first, then actions: who, what, by when.\n\nÉcris dans la langue de la personne.\n'

describeOnBothDatabases('SKILL.md export and import', (database, kind) => {
  let empty: TestDatabase
  beforeAll(async () => {
    empty = await createTestDatabase(kind === 'native' ? 'embedded' : 'native')
  })
  afterAll(async () => {
    await empty?.close()
  })

  it('round-trips into an empty installation: same body, description, shareable files; the private file stays home', async () => {
    const { db } = database()
    const skill = await createSkill(db, ANA, {
      name: 'team-recap', description: 'Write a recap: "decisions", owners, next steps — compte rendu.', body: BODY, tags: ['writing'], allowedTools: ['recall_memory'],
      files: [
        { path: 'template.md', content: '## Decisions\n\n## Actions\n', shareable: true },
        { path: 'examples/good.md', content: 'A good recap.\n', shareable: true },
        { path: 'client-names.md', content: 'ACME is difficult\n', shareable: false },
      ],
    })
    expect(skill.body).toBe(BODY.trim())
    const bundle = await exportSkill(db, ANA, skill.id)
    const entries = readTar(bundle.data).map(e => e.path).sort()
    expect(entries).toEqual(['team-recap/SKILL.md', 'team-recap/references/examples/good.md', 'team-recap/references/template.md'])
    expect(bundle.data.toString('utf8')).not.toContain('ACME')
    expect(readTar(bundle.data).find(e => e.path.endsWith('SKILL.md'))!.content).toMatch(/^---\nname: team-recap\ndescription: /)

    const imported = await importSkill(empty.db, ZOE, bundle.data)
    const view = await skillView(empty.db, ZOE, imported.id)
    expect(view.skill).toMatchObject({ name: 'team-recap', description: skill.description, body: skill.body, tags: ['writing'], allowedTools: ['recall_memory'], origin: 'import', version: 1 })
    expect(view.files.map(f => [f.path, f.content])).toEqual([['examples/good.md', 'A good recap.\n'], ['template.md', '## Decisions\n\n## Actions\n']])
    expect((await listLibrary(empty.db, ZOE.email)).mine.map(s => s.name)).toEqual(['team-recap'])
    // Importing it twice is a clash, not a silent overwrite.
    await expect(importSkill(empty.db, ZOE, bundle.data)).rejects.toMatchObject({ code: 'skill_exists', status: 409 })
  })

  it('keeps the downloaded copy\'s fingerprint: "newer version" once the skill changes after the download', async () => {
    const { db } = database()
    const skill = await createSkill(db, ANA, { name: 'badge-skill', description: 'd', body: 'v1' })
    expect((await listLibrary(db, ANA.email)).mine.find(s => s.id === skill.id)!.newerVersion).toBe(false)
    await exportSkill(db, ANA, skill.id)
    expect((await listLibrary(db, ANA.email)).mine.find(s => s.id === skill.id)!.newerVersion).toBe(false)
    await saveSkill(db, ANA, skill.id, { description: 'd', body: 'v2' })
    expect((await listLibrary(db, ANA.email)).mine.find(s => s.id === skill.id)!.newerVersion).toBe(true)
    await exportSkill(db, ANA, skill.id)
    expect((await skillView(db, ANA, skill.id)).newerVersion).toBe(false)
  })

  it('refuses a malformed front matter naming the line, and stores nothing', async () => {
    const bad = (text: string) => writeTar([{ path: 'x/SKILL.md', content: text }])
    const cases: Array<[string, number, RegExp]> = [
      ['---\nname: ok-name\ndescription "no colon"\n---\nbody\n', 3, /line 3: expected "key: value"/],
      ['name: ok\n', 1, /line 1: .*open with "---"/],
      ['---\nname: Bad Name\ndescription: d\n---\nbody\n', 2, /line 2: name "Bad Name"/],
      ['---\nname: ok-name\ndescription: "unterminated\n---\nbody\n', 3, /line 3: .*quoted/],
      ['---\nname: ok-name\ndescription: d\n', 4, /line 4: .*never closed/],
      ['---\nname: ok-name\nname: again\ndescription: d\n---\nbody\n', 3, /line 3: "name" is given twice/],
      ['---\nname: ok-name\n---\nbody\n', 3, /line 3: .*no "description"/],
    ]
    for (const [text, line, message] of cases) {
      expect(() => parseSkillMd(text), text).toThrow(message)
      const error = await importSkill(database().db, ANA, bad(text)).catch(
        e => e as { code: string, status: number, details: { line: number } },
      )
      expect(error, text).toMatchObject({ code: 'malformed_front_matter', status: 422, details: { line } })
    }
    expect((await listLibrary(database().db, ANA.email)).mine.map(s => s.name)).not.toContain('ok-name')
    expect(() => importBundle(writeTar([{ path: 'a/SKILL.md', content: '---\nname: a\ndescription: d\n---\nb\n' }, { path: 'b/SKILL.md', content: '---\nname: b\ndescription: d\n---\nb\n' }]))).toThrow(/exactly one SKILL.md/)
    // A bare SKILL.md (not a bundle) imports too.
    expect(importBundle(Buffer.from('---\nname: bare\ndescription: "A: colon"\n---\nDo it.\n'))).toMatchObject({ name: 'bare', description: 'A: colon', body: 'Do it.\n', files: [] })
  })
})
