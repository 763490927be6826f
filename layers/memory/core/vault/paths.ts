// Paths inside the vault. A path given by a caller (the hub, an automate) is relative, uses
// forward slashes, stays inside one sub-space and names a markdown file; no component may be
// a symbolic link (a link could lead outside the vault).
import { lstatSync } from 'node:fs'
import { join, posix } from 'node:path'
import { NOTE_EXTENSION, isVaultSpace, type VaultSpace } from './layout'

export class VaultPathError extends Error {
  readonly code = 'bad_vault_path'
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`)
    this.name = 'VaultPathError'
  }
}

export interface VaultPath {
  /** Normalised relative path (`inbox/topic/note.md`). */
  relative: string
  space: VaultSpace
  absolute: string
}

/** Validates the shape of a relative note path without touching the disk. */
export function parseVaultPath(vaultDir: string, path: string): VaultPath {
  if (typeof path !== 'string' || path.length === 0) throw new VaultPathError(String(path), 'empty path')
  if (path.length > 1024) throw new VaultPathError(path.slice(0, 80), 'path longer than 1024 characters')
  if (path.includes('\0')) throw new VaultPathError(path, 'path contains a NUL character')
  if (path.includes('\\')) throw new VaultPathError(path, 'use forward slashes')
  if (path.startsWith('/') || /^[a-z]:/i.test(path)) throw new VaultPathError(path, 'absolute paths are refused: give a path relative to the vault')
  const segments = path.split('/')
  if (segments.some(segment => segment === '..' || segment === '.' || segment === '')) {
    throw new VaultPathError(path, 'a path leading outside the vault (or with empty, . or .. segments) is refused')
  }
  const relative = posix.normalize(path)
  const space = segments[0]!
  if (!isVaultSpace(space) || segments.length < 2) throw new VaultPathError(path, `not inside a vault sub-space (permanent, inbox, toc, daily, ephemeral)`)
  if (!relative.endsWith(NOTE_EXTENSION)) throw new VaultPathError(path, `a note is a ${NOTE_EXTENSION} file`)
  return { relative, space, absolute: join(vaultDir, ...segments) }
}

/** Refuses the path when any existing component below the vault root is a symbolic link. */
export function assertNoSymlink(vaultDir: string, path: VaultPath): void {
  const segments = path.relative.split('/')
  let current = vaultDir
  for (const segment of segments) {
    current = join(current, segment)
    let isLink: boolean
    try {
      isLink = lstatSync(current).isSymbolicLink()
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    if (isLink) throw new VaultPathError(path.relative, 'symbolic links are refused in the vault')
  }
}

/** parseVaultPath + assertNoSymlink: the one check before reading or writing a note. */
export function resolveVaultPath(vaultDir: string, path: string): VaultPath {
  const parsed = parseVaultPath(vaultDir, path)
  assertNoSymlink(vaultDir, parsed)
  return parsed
}
