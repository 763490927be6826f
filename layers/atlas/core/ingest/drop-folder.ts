// The watched folder (ATLAS_DROP_DIR, default DATA_DIR/atlas-drop): each `*.eml` file dropped
// there is stored like a message from the mailbox (mailbox `drop`), handed to the same cycle's
// pipeline with its attachment files, then removed — the database holds it from then on. A
// file still being written (changed in the last 2 s) waits for the next cycle; a crash between
// storing and removing is harmless (stored again = recognised as a duplicate, then removed).
import { closeSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '#db/client'
import type { AtlasConfig } from '../config'
import type { WorkItem } from '../pipeline'
import { ingestSource } from '../ingest-source'
import type { DNSResolver } from '../auth/verify'
import { formatBytes } from '#layers/spawn/core/text'

export const DROP_MAILBOX = 'drop'
const SETTLE_MS = 2000

export interface DropFolderDeps {
  db: Db
  config: AtlasConfig
  actor: string
  log: (line: string) => void
  /** This cycle's folder for the attachment files. */
  dir: string
  now?: () => number
  /** The cycle's DNS for sender authentication (auth/cycle-resolver.ts). */
  resolver?: DNSResolver
}

export async function collectDropFolder(deps: DropFolderDeps): Promise<WorkItem[]> {
  const { config, log } = deps
  let names: string[]
  try {
    names = readdirSync(config.dropDir).filter(name => name.toLowerCase().endsWith('.eml') && !name.startsWith('.')).sort()
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log(`[atlas-collect] watched folder ${config.dropDir}: ${(error as Error).message}`)
    return []
  }
  const items: WorkItem[] = []
  const now = deps.now?.() ?? Date.now()
  for (const [index, name] of names.entries()) {
    const path = join(config.dropDir, name)
    const stat = statSync(path, { throwIfNoEntry: false })
    if (!stat?.isFile() || now - stat.mtimeMs < SETTLE_MS) continue
    const tooLarge = stat.size > config.limits.maxMessageBytes
    // An oversized file is stored from its headers only, quarantined with the reason, as from IMAP.
    const source = tooLarge ? readHead(path) : readFileSync(path)
    const { stored, files } = await ingestSource(deps.db, source, {
      config,
      actor: deps.actor,
      dir: join(deps.dir, String(index)),
      mailbox: DROP_MAILBOX,
      uidValidity: null,
      uid: null,
      size: stat.size,
      headersOnly: tooLarge,
      resolver: deps.resolver,
    })
    log(`[atlas-collect] watched folder: ${name} (${formatBytes(stat.size)}) → message #${stored.messageRowId}, ${stored.outcome}`)
    if (stored.status === 'received' || stored.status === 'classification_failed') items.push({ inboxId: stored.inboxId, files })
    rmSync(path, { force: true })
  }
  return items
}

function readHead(path: string): Buffer {
  const whole = Buffer.alloc(256 * 1024)
  const fd = openSync(path, 'r')
  let length: number
  try {
    length = readSync(fd, whole, 0, whole.length, 0)
  }
  finally {
    closeSync(fd)
  }
  return headerBlock(whole.subarray(0, length))
}

function headerBlock(whole: Buffer): Buffer {
  const end = whole.indexOf('\r\n\r\n') >= 0 ? whole.indexOf('\r\n\r\n') : whole.indexOf('\n\n')
  return end >= 0 ? whole.subarray(0, end) : whole
}
