// Everything the Atlas pipeline reads from the environment, in one place. Each variable
// is parsed here, with a clear error naming it when its value makes no sense; the rest of
// the core receives the resulting object as an argument.
import { isIP } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AtlasConfigError, type AtlasEnv } from '#layers/spawn/core/env'

export { AtlasConfigError, type AtlasEnv }

export interface ImapConfig {
  host: string
  port: number
  secure: boolean
  user: string
  password: string
  mailbox: string
  /** Deadline on one whole poll (connect, search, fetch, flag, logout). */
  deadlineMs: number
}

export interface AtlasLimits {
  /** A message larger than this is quarantined without being parsed. */
  maxMessageBytes: number
  maxAttachmentBytes: number
  maxAttachments: number
  maxMimeParts: number
  /** New messages taken per cycle; the rest wait for the next one. */
  maxMessagesPerCycle: number
}

export interface ScannerConfig {
  clamd?: { host: string, port: number }
  clamscanBin: string
  /** A signature database (file or folder) for clamscan; its own default when unset. */
  clamavDatabase?: string
  timeoutMs: number
}

export interface OcrConfig {
  enabled: boolean
  maxImages: number
  /** Images wider or taller than this are downscaled before recognition. */
  maxDimension: number
  /** Images over this many input pixels are not decoded at all (decompression bombs). */
  maxInputPixels: number
  /** The worker is recycled after this many recognitions. */
  recycleAfter: number
}

export interface ClassifierConfig {
  timeoutMs: number
  maxAttempts: number
  /** Messages classified at the same time (the model's latency dominates a cycle). */
  concurrency: number
  founderEmails: string[]
  /** The team (INTERNAL_TEAM_EMAILS and the founders): authenticated, they may start an agent. */
  teamEmails: string[]
}

export interface SenderAuthConfig {
  /** authserv-ids (and Received `by` hosts) of the receiving servers whose top headers are believed. */
  trustedAuthservIds: string[]
  /** Our own relays between the edge and the trusted server, by IP or network: the only hops below the top one believed. */
  internalRelays: string[]
  /** Forwarders whose ARC seal is believed (ATLAS_TRUSTED_ARC_SEALERS): a forwarded mail keeps what their first receiver verified. */
  trustedArcSealers: string[]
  /** Deadline on one message's DNS checks; past it the verdict is `none`. */
  timeoutMs: number
  /**
   * Mail without a trusted server's stamp on top (appended by IMAP, dropped in the folder):
   * `unverified` grants it no privilege, `verify` judges it by its own DKIM and ARC signatures
   * (ATLAS_UNSTAMPED_MAIL; unset: unverified when ATLAS_TRUSTED_AUTHSERV_IDS names a server).
   */
  unstampedMail: 'unverified' | 'verify'
}

export interface AtlasConfig {
  imap?: ImapConfig
  limits: AtlasLimits
  scanner: ScannerConfig
  ocr: OcrConfig
  classifier: ClassifierConfig
  senderAuth: SenderAuthConfig
  /** Parent of the per-cycle temporary attachment folders. */
  tmpDir: string
  /** The watched folder: each `*.eml` dropped there is collected like mailbox mail, then removed. */
  dropDir: string
  /**
   * Test-only: stop the collector at a named point (`point` or `point@n` for the n-th time)
   * and wait there, so a test can kill it. Never set in production.
   */
  pauseAt?: { point: string, occurrence: number }
  /**
   * Test-only: a deliberately broken collector, for the soak to prove it catches it
   * (`seen_before_insert`: \Seen set before the message is stored). Refused outside tests.
   */
  fault?: 'seen_before_insert'
}

const MB = 1024 * 1024

function text(env: AtlasEnv, name: string): string | undefined {
  const value = env[name]?.trim()
  return value ? value : undefined
}

function integer(env: AtlasEnv, name: string, fallback: number, min = 1): number {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new AtlasConfigError(name, `expected a whole number ≥ ${min}, got "${raw}"`)
  return value
}

function flag(env: AtlasEnv, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new AtlasConfigError(name, `expected 1/0, true/false, yes/no or on/off, got "${raw}"`)
}

/** A comma- or space-separated list of addresses, lower-cased; each must look like one. */
export function emailList(env: AtlasEnv, name: string): string[] {
  const raw = text(env, name)
  if (!raw) return []
  const addresses = raw.split(/[\s,;]+/).map(entry => entry.trim().toLowerCase()).filter(Boolean)
  for (const address of addresses) {
    if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(address)) throw new AtlasConfigError(name, `"${address}" is not an email address`)
  }
  return [...new Set(addresses)]
}

/** A list of host names (authserv-ids), lower-cased. */
function hostList(env: AtlasEnv, name: string): string[] {
  const raw = text(env, name)
  if (!raw) return []
  const hosts = raw.split(/[\s,;]+/).map(entry => entry.trim().toLowerCase()).filter(Boolean)
  for (const host of hosts) {
    if (!/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(host)) throw new AtlasConfigError(name, `"${host}" is not a host name`)
  }
  return [...new Set(hosts)]
}

/** A list of IP addresses or networks in CIDR notation. */
function networkList(env: AtlasEnv, name: string): string[] {
  const raw = text(env, name)
  if (!raw) return []
  const entries = raw.split(/[\s,;]+/).map(entry => entry.trim().toLowerCase()).filter(Boolean)
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/')
    const family = isIP(address)
    const max = family === 6 ? 128 : 32
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
      throw new AtlasConfigError(name, `"${entry}" is not an IP address or a network (192.0.2.25, 10.0.0.0/8, 2001:db8::/32)`)
    }
  }
  return [...new Set(entries)]
}

/** Unset: unverified once a trusted server is named (mail came another way), else judged by its signatures (nothing else to go by). */
function unstampedMail(env: AtlasEnv): SenderAuthConfig['unstampedMail'] {
  const raw = text(env, 'ATLAS_UNSTAMPED_MAIL')?.toLowerCase()
  if (raw === undefined) return hostList(env, 'ATLAS_TRUSTED_AUTHSERV_IDS').length > 0 ? 'unverified' : 'verify'
  if (raw === 'unverified') return 'unverified'
  if (raw === 'verify') return 'verify'
  throw new AtlasConfigError('ATLAS_UNSTAMPED_MAIL', `expected unverified or verify, got "${raw}"`)
}

function imapConfig(env: AtlasEnv): ImapConfig | undefined {
  const host = text(env, 'ATLAS_IMAP_HOST')
  if (!host) return undefined
  const secure = flag(env, 'ATLAS_IMAP_SECURE', true)
  const user = text(env, 'ATLAS_IMAP_USER')
  const password = env.ATLAS_IMAP_PASSWORD
  if (!user) throw new AtlasConfigError('ATLAS_IMAP_USER', 'required when ATLAS_IMAP_HOST is set (the Atlas mailbox login)')
  if (!password) throw new AtlasConfigError('ATLAS_IMAP_PASSWORD', 'required when ATLAS_IMAP_HOST is set')
  const port = integer(env, 'ATLAS_IMAP_PORT', secure ? 993 : 143)
  if (port > 65535) throw new AtlasConfigError('ATLAS_IMAP_PORT', `not a port number: ${port}`)
  return {
    host,
    port,
    secure,
    user,
    password,
    mailbox: text(env, 'ATLAS_IMAP_MAILBOX') ?? 'INBOX',
    deadlineMs: integer(env, 'ATLAS_IMAP_DEADLINE_MS', 90_000, 1000),
  }
}

function pauseAt(env: AtlasEnv): AtlasConfig['pauseAt'] {
  const raw = text(env, 'ATLAS_COLLECT_PAUSE_AT')
  if (!raw) return undefined
  const match = /^([a-z_]+)(?:@(\d+))?$/.exec(raw)
  if (!match) throw new AtlasConfigError('ATLAS_COLLECT_PAUSE_AT', `expected point or point@n, got "${raw}"`)
  return { point: match[1]!, occurrence: Number(match[2] ?? 1) }
}

const FAULTS = ['seen_before_insert'] as const

function fault(env: AtlasEnv): AtlasConfig['fault'] {
  const raw = text(env, 'ATLAS_COLLECT_FAULT')
  if (!raw) return undefined
  // A broken build on purpose: never honoured outside a test run (vitest sets NODE_ENV=test).
  if (env.NODE_ENV !== 'test') throw new AtlasConfigError('ATLAS_COLLECT_FAULT', `a test-only fault switch, refused unless NODE_ENV=test (got NODE_ENV="${env.NODE_ENV ?? ''}")`)
  if (!(FAULTS as readonly string[]).includes(raw)) throw new AtlasConfigError('ATLAS_COLLECT_FAULT', `expected one of ${FAULTS.join(', ')}, got "${raw}"`)
  return raw as AtlasConfig['fault']
}

export function readAtlasConfig(env: AtlasEnv): AtlasConfig {
  const clamdHost = text(env, 'CLAMD_HOST')
  return {
    imap: imapConfig(env),
    limits: {
      maxMessageBytes: integer(env, 'ATLAS_MAX_MESSAGE_BYTES', 35 * MB),
      maxAttachmentBytes: integer(env, 'ATLAS_MAX_ATTACHMENT_BYTES', 25 * MB),
      maxAttachments: integer(env, 'ATLAS_MAX_ATTACHMENTS', 20, 0),
      maxMimeParts: integer(env, 'ATLAS_MAX_MIME_PARTS', 200),
      maxMessagesPerCycle: integer(env, 'ATLAS_MAX_MESSAGES_PER_CYCLE', 200),
    },
    scanner: {
      clamd: clamdHost ? { host: clamdHost, port: integer(env, 'CLAMD_PORT', 3310) } : undefined,
      clamscanBin: text(env, 'CLAMSCAN_BIN') ?? 'clamscan',
      clamavDatabase: text(env, 'CLAMAV_DATABASE'),
      timeoutMs: integer(env, 'ATLAS_SCAN_TIMEOUT_MS', 120_000, 100),
    },
    ocr: {
      enabled: flag(env, 'ATLAS_OCR_ENABLED', true),
      maxImages: integer(env, 'ATLAS_OCR_MAX_IMAGES', 10, 0),
      maxDimension: integer(env, 'ATLAS_OCR_MAX_DIMENSION', 2500, 100),
      maxInputPixels: integer(env, 'ATLAS_OCR_MAX_INPUT_PIXELS', 50_000_000, 10_000),
      recycleAfter: integer(env, 'ATLAS_OCR_RECYCLE_AFTER', 25),
    },
    classifier: {
      timeoutMs: integer(env, 'ATLAS_CLASSIFY_TIMEOUT_MS', 30_000, 100),
      maxAttempts: integer(env, 'ATLAS_CLASSIFY_MAX_ATTEMPTS', 3),
      concurrency: integer(env, 'ATLAS_CLASSIFY_CONCURRENCY', 4),
      founderEmails: emailList(env, 'ATLAS_FOUNDER_EMAILS'),
      teamEmails: [...new Set([...emailList(env, 'INTERNAL_TEAM_EMAILS'), ...emailList(env, 'ATLAS_FOUNDER_EMAILS')])],
    },
    senderAuth: {
      trustedAuthservIds: hostList(env, 'ATLAS_TRUSTED_AUTHSERV_IDS'),
      internalRelays: networkList(env, 'ATLAS_INTERNAL_RELAYS'),
      trustedArcSealers: hostList(env, 'ATLAS_TRUSTED_ARC_SEALERS'),
      timeoutMs: integer(env, 'ATLAS_AUTH_TIMEOUT_MS', 15_000, 100),
      unstampedMail: unstampedMail(env),
    },
    tmpDir: text(env, 'ATLAS_TMP_DIR') ?? tmpdir(),
    dropDir: text(env, 'ATLAS_DROP_DIR') ?? join(text(env, 'DATA_DIR') ?? join(process.cwd(), '.data'), 'atlas-drop'),
    pauseAt: pauseAt(env),
    fault: fault(env),
  }
}
