import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseVaultPath, resolveVaultPath, VaultPathError } from '../../core/vault/paths'

describe('vault paths', () => {
  const root = mkdtempSync(join(tmpdir(), 'synedre-paths-'))
  const vault = join(root, 'vault')
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('accepts a relative markdown path inside a sub-space', () => {
    expect(parseVaultPath(vault, 'inbox/topic/note.md')).toEqual({ relative: 'inbox/topic/note.md', space: 'inbox', absolute: join(vault, 'inbox', 'topic', 'note.md') })
  })

  it.each([
    ['', /empty path/],
    ['inbox/a\0.md', /NUL/],
    ['inbox\\a.md', /forward slashes/],
    ['/etc/passwd.md', /absolute paths are refused/],
    ['C:/vault/inbox/a.md', /absolute paths are refused/],
    ['inbox/../../etc/passwd.md', /leading outside the vault/],
    ['../inbox/a.md', /leading outside the vault/],
    ['inbox/./a.md', /leading outside the vault/],
    ['inbox//a.md', /leading outside the vault/],
    ['archive/a.md', /not inside a vault sub-space/],
    ['inbox.md', /not inside a vault sub-space/],
    ['inbox/a.txt', /a note is a \.md file/],
    ['x'.repeat(1025), /longer than 1024/],
  ])('refuses %j', (path, problem) => {
    expect(() => parseVaultPath(vault, path)).toThrow(VaultPathError)
    expect(() => parseVaultPath(vault, path)).toThrow(problem)
  })

  it('refuses a path going through a symbolic link, file or folder', () => {
    mkdirSync(join(vault, 'inbox'), { recursive: true })
    mkdirSync(join(root, 'outside'))
    writeFileSync(join(root, 'outside', 'x.md'), 'x')
    symlinkSync(join(root, 'outside'), join(vault, 'inbox', 'dir'))
    symlinkSync(join(root, 'outside', 'x.md'), join(vault, 'inbox', 'file.md'))
    expect(() => resolveVaultPath(vault, 'inbox/dir/x.md')).toThrow(/symbolic links are refused/)
    expect(() => resolveVaultPath(vault, 'inbox/file.md')).toThrow(/symbolic links are refused/)
    expect(resolveVaultPath(vault, 'inbox/missing/new.md').relative).toBe('inbox/missing/new.md')
  })
})
