// Finds the system programs the Atlas tests drive (Dovecot, ClamAV): on PATH, then in the
// sbin folders a non-root PATH often lacks. Missing → a clear error naming the fix.
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

export function findBinary(name: string, install: string): string {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin', '/usr/bin']
  for (const folder of folders.filter(Boolean)) {
    const candidate = join(folder, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    }
    catch { /* next */ }
  }
  throw new Error(`${name} is not installed (looked on PATH and in /usr/sbin): run scripts/setup-system.sh as root, which installs ${install}`)
}
