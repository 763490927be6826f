import { mkdirSync, readFileSync, existsSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { hubAudit } from '#db/schema/hub'
import { memNotes } from '#db/schema/mem'
import { writeInboxNote } from '../../core/vault/inbox'
import { indexNotes } from '../../core/vault/indexer'
import { PROMOTE_AUDIT_ACTION, promoteToPermanent, type PromoteError } from '../../core/vault/promote'
import { VaultPathError } from '../../core/vault/paths'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

describeOnBothDatabases('promotion to the permanent zone', (database) => {
  let folders: MemoryFolders
  beforeAll(() => {
    folders = memoryFolders()
  })
  afterAll(() => folders.remove())

  it('automates write drafts into the inbox only', () => {
    const vault = folders.vaultDir
    expect(writeInboxNote(vault, { name: 'debriefs/acme.md', frontmatter: { title: 'Acme debrief', status: 'draft' }, body: 'Draft [[rrf]].' })).toBe('inbox/debriefs/acme.md')
    expect(readFileSync(join(vault, 'inbox', 'debriefs', 'acme.md'), 'utf8')).toBe('---\ntitle: Acme debrief\nstatus: draft\n---\n\nDraft [[rrf]].\n')
    expect(() => writeInboxNote(vault, { name: 'debriefs/acme.md', body: 'again' })).toThrow(/already exists in the inbox/)
    expect(() => writeInboxNote(vault, { name: '../permanent/sneaky.md', body: 'x' })).toThrow(VaultPathError)
    expect(() => writeInboxNote(vault, { name: '/etc/passwd.md', body: 'x' })).toThrow(VaultPathError)
    expect(() => writeInboxNote(vault, { name: 'notes.txt', body: 'x' })).toThrow(/a note is a \.md file/)
    expect(existsSync(join(vault, 'permanent', 'sneaky.md'))).toBe(false)
    writeInboxNote(vault, { name: 'debriefs/acme.md', body: 'replaced', overwrite: true })
    expect(readFileSync(join(vault, 'inbox', 'debriefs', 'acme.md'), 'utf8')).toBe('replaced\n')
  })

  it('moves an inbox note to permanent/, re-indexes it and audits who did it', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    writeInboxNote(vault, { name: 'rrf.md', frontmatter: { title: 'RRF' }, body: 'Fusion.' })
    await indexNotes({ db, vaultDir: vault })
    const result = await promoteToPermanent({ db, vaultDir: vault }, { path: 'inbox/rrf.md', actor: 'founder@studio.test' })
    expect(result).toMatchObject({ from: 'inbox/rrf.md', to: 'permanent/rrf.md', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(existsSync(join(vault, 'inbox', 'rrf.md'))).toBe(false)
    expect(readFileSync(join(vault, 'permanent', 'rrf.md'), 'utf8')).toContain('Fusion.')
    expect(await db.select().from(memNotes).where(eq(memNotes.path, 'inbox/rrf.md'))).toEqual([])
    expect((await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/rrf.md')))[0]).toMatchObject({ space: 'permanent', title: 'RRF' })
    const [audit] = await db.select().from(hubAudit).where(eq(hubAudit.action, PROMOTE_AUDIT_ACTION))
    expect(audit).toMatchObject({ actor: 'founder@studio.test', target: 'permanent/rrf.md', details: { from: 'inbox/rrf.md', to: 'permanent/rrf.md', sha256: result.sha256 } })
    // The next index run agrees with what the promotion recorded.
    expect(await indexNotes({ db, vaultDir: vault })).toMatchObject({ indexed: 0, removed: 0 })
  })

  it('refuses everything else: other zones, missing notes, an existing permanent note, links, traversal, no actor, broken frontmatter', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    const deps = { db, vaultDir: vault }
    const refuse = async (path: string, actor: string, code: string | RegExp) => {
      const error = await promoteToPermanent(deps, { path, actor }).catch((caught: unknown) => caught as Error)
      expect(error, path).toBeInstanceOf(Error)
      if (typeof code === 'string') expect((error as PromoteError).code, path).toBe(code)
      else expect((error as Error).message, path).toMatch(code)
    }
    writeInboxNote(vault, { name: 'rrf.md', body: 'a second draft with the same name' })
    await refuse('inbox/rrf.md', 'founder@studio.test', 'exists')
    expect(existsSync(join(vault, 'inbox', 'rrf.md'))).toBe(true)
    await refuse('permanent/rrf.md', 'founder@studio.test', 'not_inbox')
    await refuse('daily/today.md', 'founder@studio.test', 'not_inbox')
    await refuse('inbox/ghost.md', 'founder@studio.test', 'not_found')
    await refuse('inbox/../permanent/rrf.md', 'founder@studio.test', /leading outside the vault/)
    await refuse('../outside.md', 'founder@studio.test', /leading outside the vault/)
    await refuse('inbox/x.md', '  ', 'no_actor')
    mkdirSync(join(folders.root, 'elsewhere'), { recursive: true })
    writeFileSync(join(folders.root, 'elsewhere', 'secret.md'), 'outside')
    symlinkSync(join(folders.root, 'elsewhere', 'secret.md'), join(vault, 'inbox', 'linked.md'))
    await refuse('inbox/linked.md', 'founder@studio.test', /symbolic links are refused/)
    symlinkSync(join(folders.root, 'elsewhere'), join(vault, 'inbox', 'linked-dir'))
    await refuse('inbox/linked-dir/secret.md', 'founder@studio.test', /symbolic links are refused/)
    writeFileSync(join(vault, 'inbox', 'broken.md'), '---\ntitle: [oops\n---\n')
    await refuse('inbox/broken.md', 'founder@studio.test', 'broken_frontmatter')
    expect(existsSync(join(vault, 'permanent', 'broken.md'))).toBe(false)
    expect(await db.select().from(hubAudit).where(eq(hubAudit.action, PROMOTE_AUDIT_ACTION))).toHaveLength(1)
  })
})
