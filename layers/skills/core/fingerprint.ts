// The fingerprint of what a SKILL.md bundle carries (name, description, body, shareable
// files): kept when a bundle is downloaded, so the library can say "newer version" later.
import { createHash } from 'node:crypto'

export function fingerprintOf(
  skill: { name: string, description: string, body: string },
  files: Array<{ path: string, content: string, shareable: boolean }>,
): string {
  const hash = createHash('sha256')
  hash.update(JSON.stringify([skill.name, skill.description, skill.body]))
  for (const file of files.filter(f => f.shareable).sort((a, b) => (a.path < b.path ? -1 : 1)))
    hash.update(JSON.stringify([file.path, file.content]))
  return hash.digest('hex')
}
