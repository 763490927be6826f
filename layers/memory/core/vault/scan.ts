// Walks the vault's sub-spaces for markdown notes without following any symbolic link: a
// link (to a file or a folder) is refused and reported, so nothing outside the vault is read.
import { lstatSync, readdirSync, realpathSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { NOTE_EXTENSION, VAULT_SPACES, type VaultSpace } from './layout'

export interface ScannedNote {
  /** Relative path with forward slashes. */
  path: string
  space: VaultSpace
  absolute: string
  size: number
  /** Modification time, millisecond precision. */
  modifiedAt: Date
}

export interface VaultProblem {
  path: string
  problem: string
}

export interface VaultScan {
  notes: ScannedNote[]
  refused: VaultProblem[]
  /** False when VAULT_DIR does not exist. */
  exists: boolean
}

const MAX_DEPTH = 32

function toRelative(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/')
}

export function scanVault(vaultDir: string): VaultScan {
  let root: string
  try {
    root = realpathSync(vaultDir)
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { notes: [], refused: [], exists: false }
    throw error
  }
  const notes: ScannedNote[] = []
  const refused: VaultProblem[] = []

  const walk = (folder: string, space: VaultSpace, depth: number): void => {
    if (depth > MAX_DEPTH) {
      refused.push({ path: toRelative(root, folder), problem: `folders nested deeper than ${MAX_DEPTH} levels are not indexed` })
      return
    }
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue
      const absolute = join(folder, entry.name)
      const path = toRelative(root, absolute)
      if (entry.isSymbolicLink()) {
        refused.push({ path, problem: 'symbolic link refused (it could lead outside the vault)' })
        continue
      }
      if (entry.isDirectory()) {
        walk(absolute, space, depth + 1)
        continue
      }
      if (!entry.isFile() || !entry.name.toLowerCase().endsWith(NOTE_EXTENSION)) continue
      const stats = lstatSync(absolute)
      notes.push({ path, space, absolute, size: stats.size, modifiedAt: new Date(Math.round(stats.mtimeMs)) })
    }
  }

  for (const space of VAULT_SPACES) {
    const folder = join(root, space)
    let stats
    try {
      stats = lstatSync(folder)
    }
    catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    if (stats.isSymbolicLink()) {
      refused.push({ path: space, problem: 'symbolic link refused (a sub-space must be a real folder inside the vault)' })
      continue
    }
    if (!stats.isDirectory()) {
      refused.push({ path: space, problem: 'not a folder' })
      continue
    }
    walk(folder, space, 1)
  }
  notes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { notes, refused, exists: true }
}
