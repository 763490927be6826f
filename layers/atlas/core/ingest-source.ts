// One message source (from the mailbox, the watched folder or a submission) parsed into its
// folder and stored, or quarantined with its reason.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '#db/client'
import { formatBytes } from '#layers/spawn/core/text'
import { verifySender } from './auth/sender'
import type { DNSResolver } from './auth/verify'
import type { AtlasConfig } from './config'
import { parseMessage, QuarantineError, type ParsedMessage } from './ingest/parse'
import { storeIncoming, type StoredMessage } from './ingest/store'

function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex')
}

/** Parses into `dir`; a quarantine (limits, unparseable) comes back as a reason, never a throw. */
export async function parseInto(
  raw: Buffer,
  dir: string,
  config: AtlasConfig,
  headersOnly = false,
): Promise<{ parsed: Partial<ParsedMessage>, quarantine?: string }> {
  mkdirSync(dir, { recursive: true })
  try {
    return { parsed: await parseMessage(raw, { limits: config.limits, dir, headersOnly }) }
  }
  catch (error) {
    if (error instanceof QuarantineError) {
      let partial: Partial<ParsedMessage> = error.partial ?? {}
      if (!error.partial) {
        // Keep at least who sent it and what it was about.
        try {
          partial = await parseMessage(headerBlock(raw), { limits: config.limits, dir: join(dir, 'headers'), headersOnly: true }).then(
            p => ({ ...p, attachments: [] }),
          )
        }
        catch {
          /* nothing readable at all */
        }
      }
      return { parsed: { ...partial, attachments: partial.attachments ?? [] }, quarantine: error.reason }
    }
    throw error
  }
}

/** The header block of a raw message (up to the first empty line). */
function headerBlock(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n')
  const alt = raw.indexOf('\n\n')
  const cut = [end, alt].filter(i => i >= 0).sort((a, b) => a - b)[0]
  const block = cut === undefined ? raw : raw.subarray(0, cut)
  return block.subarray(0, 256 * 1024)
}

export function filesOf(parsed: Partial<ParsedMessage>): Map<number, string> {
  return new Map((parsed.attachments ?? []).map(attachment => [attachment.position, attachment.path]))
}

export interface IngestOptions {
  config: AtlasConfig
  actor: string
  /** This message's folder for its attachment files (inside the cycle's folder). */
  dir: string
  mailbox: string
  uidValidity: number | null
  uid: number | null
  /** The size the server announced (the source's length otherwise). */
  size?: number
  /** `source` is the header block of a message too large to download. */
  headersOnly?: boolean
  /** DNS for sender authentication (the system resolver by default). */
  resolver?: DNSResolver
}

/** Parses one source into its folder and stores it; the attachment files come back for the pipeline. */
export async function ingestSource(
  db: Db,
  source: Buffer,
  options: IngestOptions,
): Promise<{ stored: StoredMessage, files: Map<number, string> | null }> {
  const { config } = options
  const size = options.size ?? source.length
  let parsed: { parsed: Partial<ParsedMessage>, quarantine?: string }
  if (options.headersOnly) {
    const headerOnly = await parseInto(source, options.dir, config, true)
    parsed = {
      parsed: { ...headerOnly.parsed, attachments: [] },
      quarantine: `message of ${formatBytes(size)}, over the ${formatBytes(config.limits.maxMessageBytes)} limit (ATLAS_MAX_MESSAGE_BYTES): not downloaded`,
    }
  }
  else {
    parsed = await parseInto(source, options.dir, config)
  }
  // A message too large to download has no body to check signatures against.
  const senderAuth = options.headersOnly
    ? null
    : await verifySender(
        db,
        source,
        { address: parsed.parsed.fromAddress ?? null, name: parsed.parsed.fromName ?? null },
        config,
        options.resolver,
      )
  const stored = await storeIncoming(
    db,
    {
      rawSha256: sha256(source),
      rawSize: size,
      mailbox: options.mailbox,
      uidValidity: options.uidValidity,
      uid: options.uid,
      parsed: parsed.parsed,
      quarantine: parsed.quarantine,
      senderAuth,
    },
    options.actor,
  )
  return { stored, files: parsed.quarantine ? null : filesOf(parsed.parsed) }
}
