// The data folder is private to the user running Synedre OS: the folder and every folder
// in it 0700, every file 0600 (checked and fixed at each start; not by a umask: PGlite's
// initdb hangs under umask 077), and the embedded socket's password lives in it.
import { accessSync, chmodSync, constants, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { DatabaseSetupError } from './errors'

export const PASSWORD_FILE = 'embedded-password'

/** Modes fixed under dataDir (the folder itself included): [path, old mode, new mode]. */
function fixModes(path: string, fixed: Array<[string, number, number]>): void {
  const stat = lstatSync(path)
  if (stat.isSymbolicLink()) return
  const want = stat.isDirectory() ? 0o700 : 0o600
  const mode = stat.mode & 0o777
  if (mode !== want) {
    chmodSync(path, want)
    fixed.push([path, mode, want])
  }
  if (stat.isDirectory()) for (const entry of readdirSync(path)) fixModes(join(path, entry), fixed)
}

/** Creates dataDir if needed, checks it is usable, and makes it and its content private. */
export function ensurePrivateDataDir(dataDir: string, log: (line: string) => void): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK)
  }
  catch (error) {
    throw new DatabaseSetupError(
      `The data folder ${dataDir} cannot be read and written (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      `Give the user running Synedre OS read and write access to it (chown/chmod), or point DATA_DIR at a writable folder.`,
    )
  }
  const fixed: Array<[string, number, number]> = []
  fixModes(dataDir, fixed)
  if (fixed.length) {
    const sample = fixed.slice(0, 3).map(([path, from, to]) => `${path} ${from.toString(8)}→${to.toString(8)}`).join(', ')
    log(`data folder permissions fixed: ${fixed.length} entr${fixed.length === 1 ? 'y' : 'ies'} of ${dataDir} were readable by others (${sample}${fixed.length > 3 ? ', …' : ''}); now folders 0700, files 0600.`)
  }
}

/**
 * After PGlite opened the folder: it writes its files 0666 whatever the umask, so they are
 * made private again (silently: these are new files, not a wrong setup to report).
 */
export function makePrivate(dataDir: string): void {
  fixModes(dataDir, [])
}

/** The embedded socket's password: made on first use (0600), read by every process after. */
export function embeddedPassword(dataDir: string): string {
  const file = join(dataDir, PASSWORD_FILE)
  try {
    return readFileSync(file, 'utf8').trim()
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new DatabaseSetupError(`The embedded database password ${file} cannot be read (${(error as NodeJS.ErrnoException).code}).`, 'Run Synedre OS as the user who owns the data folder.')
    }
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const password = randomBytes(24).toString('base64url')
  try {
    writeFileSync(file, `${password}\n`, { mode: 0o600, flag: 'wx' })
    return password
  }
  catch (error) {
    // Another process made it at the same moment: theirs is the one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim()
    throw error
  }
}
