// The only way code writes into the vault: a note in the inbox (the draft zone). The
// function takes a name inside the inbox, never a zone, so an automate cannot reach the
// permanent notes (the promotion rule, §1 level 2).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { stringify } from 'yaml'
import { resolveVaultPath, VaultPathError } from './paths'
import { ensureVaultLayout } from './layout'

export interface InboxNote {
  /** File name inside the inbox, optionally in sub-folders (`debriefs/acme.md`). */
  name: string
  frontmatter?: Record<string, unknown>
  body: string
  /** Replace an existing draft of the same name (default: refuse). */
  overwrite?: boolean
}

export function renderNote(frontmatter: Record<string, unknown> | undefined, body: string): string {
  const yaml = frontmatter && Object.keys(frontmatter).length > 0 ? `---\n${stringify(frontmatter).trimEnd()}\n---\n\n` : ''
  return `${yaml}${body.endsWith('\n') ? body : `${body}\n`}`
}

/** Writes a draft into the inbox; returns its vault path (`inbox/<name>`). */
export function writeInboxNote(vaultDir: string, note: InboxNote): string {
  const target = resolveVaultPath(vaultDir, `inbox/${note.name}`)
  if (target.space !== 'inbox') throw new VaultPathError(note.name, 'automates write only into the inbox')
  ensureVaultLayout(vaultDir)
  mkdirSync(dirname(target.absolute), { recursive: true })
  try {
    writeFileSync(target.absolute, renderNote(note.frontmatter, note.body), { flag: note.overwrite ? 'w' : 'wx' })
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new VaultPathError(target.relative, 'a draft with this name already exists in the inbox')
    throw error
  }
  return target.relative
}
