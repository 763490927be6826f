import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { PROCESS_TEST_TIMEOUT } from '../fixtures/processes'
import { memNotes } from '#db/schema/mem'
import { indexNotes } from '../../core/vault/indexer'
import { getNote, listNotes } from '../../core/vault/notes'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

function write(root: string, path: string, text: string, mtime?: Date): void {
  const absolute = join(root, ...path.split('/'))
  mkdirSync(join(absolute, '..'), { recursive: true })
  writeFileSync(absolute, text)
  if (mtime) utimesSync(absolute, mtime, mtime)
}

describeOnBothDatabases('note indexer', (database) => {
  let folders: MemoryFolders
  beforeAll(() => {
    folders = memoryFolders()
  })
  afterAll(() => folders.remove())

  it('indexes every sub-space: frontmatter, title, type, tags, body, links, size and modification time', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    write(vault, 'permanent/rrf.md', '---\ntitle: Reciprocal Rank Fusion\ntype: concept\ntags: [recall, "#search"]\ncreated: 2026-01-02\n---\n# Ignored heading\nSee [[hnsw]] and [[Memory Map|the map]] and [[hnsw#params]].\n', new Date('2026-02-01T10:00:00.123Z'))
    write(vault, 'permanent/hnsw.md', '# HNSW index\nNo frontmatter here. Back to [[rrf]].\n')
    write(vault, 'inbox/draft.md', '---\ntype: idea\ntags: one, two\n---\nA draft pointing at [[rrf]].\n')
    write(vault, 'toc/memory-map.md', '---\ntitle: Memory Map\n---\n[[rrf]] [[hnsw]] [[ghost]]\n')
    write(vault, 'daily/2026-03-02.md', 'Plain day.\n')
    write(vault, 'ephemeral/scratch/deep.md', '---\ntitle: Deep\n---\nnested\n')
    write(vault, 'inbox/not-a-note.txt', 'ignored')
    write(vault, 'elsewhere/outside-spaces.md', 'not in a sub-space')

    const report = await indexNotes({ db, vaultDir: vault })
    expect(report).toMatchObject({ mode: 'index', scanned: 6, indexed: 6, unchanged: 0, removed: 0, broken: [], refused: [] })
    expect(report.bySpace).toEqual({ permanent: 2, inbox: 1, toc: 1, daily: 1, ephemeral: 1 })

    const [rrf] = await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/rrf.md'))
    expect(rrf).toMatchObject({
      space: 'permanent',
      type: 'concept',
      title: 'Reciprocal Rank Fusion',
      tags: ['recall', 'search'],
      frontmatter: { title: 'Reciprocal Rank Fusion', type: 'concept', tags: ['recall', '#search'], created: '2026-01-02' },
      links: ['hnsw', 'Memory Map'],
    })
    expect(rrf!.body.startsWith('# Ignored heading')).toBe(true)
    expect(rrf!.fileModifiedAt.toISOString()).toBe('2026-02-01T10:00:00.123Z')
    expect(rrf!.size).toBeGreaterThan(50)
    const hnsw = (await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/hnsw.md')))[0]!
    expect(hnsw).toMatchObject({ title: 'HNSW index', type: null, frontmatter: {}, tags: [] })
    expect((await db.select().from(memNotes).where(eq(memNotes.path, 'inbox/draft.md')))[0]).toMatchObject({ title: 'draft', type: 'idea', tags: ['one', 'two'] })
    expect(await db.select({ path: memNotes.path }).from(memNotes).where(eq(memNotes.space, 'ephemeral'))).toEqual([{ path: 'ephemeral/scratch/deep.md' }])
  })

  it('resolves outgoing links to notes and lists backlinks', async () => {
    const { db } = database()
    const note = await getNote(db, 'permanent/rrf.md')
    expect(note!.outgoing).toEqual([
      { target: 'hnsw', note: { path: 'permanent/hnsw.md', title: 'HNSW index', space: 'permanent' } },
      { target: 'Memory Map', note: { path: 'toc/memory-map.md', title: 'Memory Map', space: 'toc' } },
    ])
    expect(note!.backlinks.map(item => item.path)).toEqual(['inbox/draft.md', 'permanent/hnsw.md', 'toc/memory-map.md'])
    const map = await getNote(db, 'toc/memory-map.md')
    expect(map!.outgoing.find(link => link.target === 'ghost')).toEqual({ target: 'ghost', note: null })
    expect(map!.backlinks.map(item => item.path)).toEqual(['permanent/rrf.md'])
    expect(await getNote(db, 'inbox/nothing.md')).toBeNull()
    expect((await listNotes(db, { space: 'inbox' })).map(item => item.path)).toEqual(['inbox/draft.md'])
    expect((await listNotes(db, { q: 'fusion' })).map(item => item.path)).toEqual(['permanent/rrf.md'])
    expect(await listNotes(db, { q: '100%_\\' })).toEqual([])
  })

  it('is incremental by modification time: unchanged notes are skipped, changed ones re-read, deleted ones removed', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    const before = await indexNotes({ db, vaultDir: vault })
    expect(before).toMatchObject({ indexed: 0, unchanged: 6, removed: 0 })

    write(vault, 'permanent/hnsw.md', '# HNSW index\nNow links to [[ghost]].\n', new Date('2026-04-01T00:00:00Z'))
    rmSync(join(vault, 'daily', '2026-03-02.md'))
    const after = await indexNotes({ db, vaultDir: vault })
    expect(after).toMatchObject({ indexed: 1, unchanged: 4, removed: 1 })
    expect((await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/hnsw.md')))[0]!.links).toEqual(['ghost'])
    expect(await db.select().from(memNotes).where(eq(memNotes.path, 'daily/2026-03-02.md'))).toEqual([])
  })

  it('reports a broken frontmatter by path, skips the note and goes on', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    write(vault, 'inbox/unclosed.md', '---\ntitle: never closed\nbody without end\n')
    write(vault, 'inbox/bad-yaml.md', '---\ntitle: [unbalanced\n---\ntext\n')
    write(vault, 'inbox/duplicate-key.md', '---\ntitle: a\ntitle: b\n---\ntext\n')
    write(vault, 'inbox/list.md', '---\n- just\n- a list\n---\ntext\n')
    write(vault, 'inbox/fine.md', '---\ntitle: Fine\n---\nok\n')
    const report = await indexNotes({ db, vaultDir: vault })
    expect(report.indexed).toBe(1)
    expect(report.broken.map(item => item.path).sort()).toEqual(['inbox/bad-yaml.md', 'inbox/duplicate-key.md', 'inbox/list.md', 'inbox/unclosed.md'])
    expect(report.broken.find(item => item.path === 'inbox/unclosed.md')!.problem).toMatch(/never closed/)
    expect(report.broken.find(item => item.path === 'inbox/bad-yaml.md')!.problem).toMatch(/invalid YAML frontmatter/)
    expect(report.broken.find(item => item.path === 'inbox/list.md')!.problem).toMatch(/not a mapping/)
    const paths = (await db.select({ path: memNotes.path }).from(memNotes)).map(row => row.path)
    expect(paths).toContain('inbox/fine.md')
    expect(paths).not.toContain('inbox/unclosed.md')
    // Still broken at the next run: reported again, never half-indexed.
    expect((await indexNotes({ db, vaultDir: vault })).broken).toHaveLength(4)
    for (const name of ['unclosed', 'bad-yaml', 'duplicate-key', 'list']) rmSync(join(vault, 'inbox', `${name}.md`))
  })

  it('refuses symbolic links, to files and to folders, and never reads outside the vault', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    const outside = join(folders.root, 'outside')
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(outside, 'secret.md'), '---\ntitle: Secret\n---\noutside the vault\n')
    symlinkSync(join(outside, 'secret.md'), join(vault, 'permanent', 'linked.md'))
    symlinkSync(outside, join(vault, 'inbox', 'linked-folder'))
    const report = await indexNotes({ db, vaultDir: vault })
    expect(report.refused.map(item => item.path).sort()).toEqual(['inbox/linked-folder', 'permanent/linked.md'])
    expect(report.refused[0]!.problem).toMatch(/symbolic link refused/)
    const titles = (await db.select({ title: memNotes.title }).from(memNotes)).map(row => row.title)
    expect(titles).not.toContain('Secret')
    rmSync(join(vault, 'permanent', 'linked.md'))
    rmSync(join(vault, 'inbox', 'linked-folder'))
  })

  it('refuses a sub-space that is a symbolic link', async () => {
    const { db } = database()
    const other = memoryFolders()
    try {
      mkdirSync(join(other.vaultDir), { recursive: true })
      mkdirSync(join(other.root, 'real-daily'))
      writeFileSync(join(other.root, 'real-daily', 'x.md'), 'x')
      symlinkSync(join(other.root, 'real-daily'), join(other.vaultDir, 'daily'))
      const report = await indexNotes({ db, vaultDir: other.vaultDir }, { stats: true })
      expect(report.refused).toEqual([{ path: 'daily', problem: expect.stringMatching(/symbolic link refused/) }])
      expect(report.scanned).toBe(0)
    }
    finally {
      other.remove()
    }
  })

  it('--stats counts without writing; --force re-indexes everything', async () => {
    const { db } = database()
    const vault = folders.vaultDir
    write(vault, 'inbox/new.md', 'new note\n')
    const rowsBefore = await db.select().from(memNotes)
    const stats = await indexNotes({ db, vaultDir: vault }, { stats: true })
    expect(stats).toMatchObject({ mode: 'stats', indexed: 1, removed: 0 })
    expect(await db.select().from(memNotes)).toEqual(rowsBefore)
    const forced = await indexNotes({ db, vaultDir: vault }, { force: true })
    expect(forced).toMatchObject({ mode: 'force', indexed: forced.scanned, unchanged: 0 })
    expect(forced.scanned).toBe(rowsBefore.length + 1)
  })

  describe('as an automate process', () => {
    it('runs through the supervision wrapper with --json, and a bad flag fails with its name', async () => {
      const env = { DATABASE_URL: database().url, VAULT_DIR: folders.vaultDir }
      const result = await runTs('automates/run.ts', ['note-indexer', '--json'], { env })
      expect(result.code, result.output).toBe(0)
      const line = result.output.split('\n').find(text => text.startsWith('{'))!
      expect(JSON.parse(line)).toMatchObject({ vault: folders.vaultDir, mode: 'index', broken: [], refused: [] })
      const bad = await runTs('automates/run.ts', ['note-indexer', '--forse'], { env })
      expect(bad.code).toBe(1)
      expect(bad.output).toMatch(/Unknown option '--forse'/)
    }, PROCESS_TEST_TIMEOUT)
  })
})
