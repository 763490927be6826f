// Editing a draft of the vault inbox (issue 35, Deliver 4: the personal agent edits an inbox
// note). Only the inbox: a path in any other zone (permanent above all: a person promotes
// into it, nobody's code writes there) is refused before the disk is touched. The note's front
// matter is kept, its body replaced; the text before and after is returned so an undo can put
// the old one back — and only while the file is still what the edit wrote.
import { readFileSync, writeFileSync } from 'node:fs'
import { splitFrontmatter } from './frontmatter'
import { resolveVaultPath, VaultPathError } from './paths'

export interface InboxEdit { path: string, before: string, after: string }

/** The inbox note at `path`, refused outside the inbox; null when the file does not exist. */
function readInbox(vaultDir: string, path: string): { absolute: string, relative: string, text: string | null } {
  const target = resolveVaultPath(vaultDir, path)
  if (target.space !== 'inbox') throw new VaultPathError(target.relative, `only notes of the inbox can be edited (this one is in ${target.space})`)
  try {
    return { absolute: target.absolute, relative: target.relative, text: readFileSync(target.absolute, 'utf8') }
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { absolute: target.absolute, relative: target.relative, text: null }
    throw error
  }
}

/** Replaces the body of an existing inbox note, keeping its front matter. */
export function editInboxNote(vaultDir: string, input: { path: string, body: string }): InboxEdit {
  const note = readInbox(vaultDir, input.path)
  if (note.text === null) throw new VaultPathError(note.relative, 'no such note in the inbox')
  // The front matter is kept as written (re-serialising it would reorder or requote it).
  const { yaml } = splitFrontmatter(note.text)
  const body = input.body.endsWith('\n') ? input.body : `${input.body}\n`
  const after = yaml === null ? body : `---\n${yaml.replace(/\s+$/, '')}\n---\n\n${body}`
  writeFileSync(note.absolute, after)
  return { path: note.relative, before: note.text, after }
}

/** Puts the text before an edit back; false when the note is gone or was changed since. */
export function restoreInboxNote(vaultDir: string, edit: InboxEdit): boolean {
  const note = readInbox(vaultDir, edit.path)
  if (note.text !== edit.after) return false
  writeFileSync(note.absolute, edit.before)
  return true
}
