// Parses one raw message from its Buffer with mailparser's streaming parser. Attachments
// stream to files in the given folder (named by position, never by the sender's file
// name), hashed and counted on the way; their bytes never reach the database. A message
// over a limit, or that the parser cannot read, comes back as a QuarantineError carrying
// a reason a person can act on.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { MailParser, type AddressObject, type AttachmentStream, type HeaderLines, type Headers, type MessageText } from 'mailparser'
import type { AtlasHeaderLine } from '#db/schema/atlas'
import type { AtlasLimits } from '../config'
import { clip, formatBytes, normaliseAddress } from '#layers/spawn/core/text'

export const MAX_TEXT_CHARS = 1_000_000
export const MAX_HTML_CHARS = 2_000_000
const MAX_HEADER_LINES = 200

export interface ParsedAttachment {
  position: number
  filename: string | null
  contentType: string
  contentId: string | null
  inline: boolean
  sizeBytes: number
  sha256: string
  /** The file holding the bytes, inside the cycle's temporary folder. */
  path: string
}

export interface ParsedMessage {
  messageId: string | null
  fromAddress: string | null
  fromName: string | null
  toAddresses: string[]
  ccAddresses: string[]
  replyTo: string | null
  subject: string
  sentAt: Date | null
  inReplyTo: string | null
  threadReferences: string[]
  headers: AtlasHeaderLine[]
  textBody: string
  htmlBody: string | null
  warnings: string[]
  attachments: ParsedAttachment[]
}

/** The message cannot go through the pipeline: it is recorded as quarantined with this reason. */
export class QuarantineError extends Error {
  constructor(readonly reason: string, readonly partial?: Partial<ParsedMessage>) {
    super(reason)
    this.name = 'QuarantineError'
  }
}

function addresses(value: unknown): AddressObject['value'] {
  const list = Array.isArray(value) ? value as AddressObject[] : value ? [value as AddressObject] : []
  const flat: AddressObject['value'] = []
  const visit = (entries: AddressObject['value']) => {
    for (const entry of entries) {
      if (entry.group) visit(entry.group)
      else flat.push(entry)
    }
  }
  for (const item of list) {
    if (item && Array.isArray(item.value)) visit(item.value)
  }
  return flat
}

/** local@domain, lower-cased, or null. */
function usableAddress(address: string | undefined): string | null {
  const normalised = clip(normaliseAddress(address), 320)
  return /^[^@\s<>]+@[^@\s<>]+$/.test(normalised) ? normalised : null
}

function addressList(value: unknown): string[] {
  return addresses(value).map(entry => usableAddress(entry.address)).filter((address): address is string => address !== null).slice(0, 200)
}

function headerText(headers: Headers, key: string): string | null {
  const value = headers.get(key)
  if (typeof value === 'string') return value
  if (Array.isArray(value) && typeof value[0] === 'string') return value.join(' ')
  return null
}

/** A Message-ID worth keying on: something between the brackets, of a sane length. */
export function normaliseMessageId(value: string | null | undefined): string | null {
  const trimmed = clip((value ?? '').trim(), 998)
  const inner = trimmed.replace(/^<|>$/g, '').trim()
  if (!inner || /\s/.test(inner)) return null
  return trimmed.startsWith('<') ? trimmed : `<${inner}>`
}

function referenceList(headers: Headers): string[] {
  const value = headers.get('references')
  const raw = Array.isArray(value) ? value.join(' ') : typeof value === 'string' ? value : ''
  return (raw.match(/<[^<>\s]+>/g) ?? []).slice(-50).map(reference => clip(reference, 998))
}

/** Copies the headers the message carried (raw lines, clipped) for the hub. */
function headerLines(lines: HeaderLines | undefined): AtlasHeaderLine[] {
  return (lines ?? []).slice(0, MAX_HEADER_LINES).map((line) => {
    const colon = line.line.indexOf(':')
    return { key: clip(line.key, 200), value: clip(colon >= 0 ? line.line.slice(colon + 1).trim() : line.line, 2000) }
  })
}

/** Counts and hashes the bytes going to disk; past the limit it keeps reading but stops writing. */
class Meter extends Transform {
  readonly hash = createHash('sha256')
  size = 0
  overLimit = false
  constructor(private readonly limit: number) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length
    if (this.size > this.limit) {
      this.overLimit = true
      done()
      return
    }
    this.hash.update(chunk)
    done(null, chunk)
  }
}

export interface ParseOptions {
  limits: AtlasLimits
  /** Where attachment files go (created by the caller). */
  dir: string
  /** Parse the header block only (an oversized message whose body was not downloaded). */
  headersOnly?: boolean
}

function describeParserError(error: Error, limits: AtlasLimits): string {
  if (/child nodes exceeded/i.test(error.message)) return `more than ${limits.maxMimeParts} MIME parts (ATLAS_MAX_MIME_PARTS)`
  if (/max.*head/i.test(error.message)) return 'a MIME header block is larger than the parser accepts'
  return `unparseable MIME: ${clip(error.message, 300)}`
}

/** What the parser's events leave: the headers, the text, the attachments being written and what went wrong. */
interface Parts {
  headers: Headers
  lines?: HeaderLines
  text?: MessageText
  attachments: ParsedAttachment[]
  writes: Promise<void>[]
  problems: string[]
  /** Attachments seen so far (the next one's position). */
  seen: number
  /** Attachments past the limit, drained unwritten. */
  skipped: number
}

function createParser(limits: AtlasLimits): MailParser {
  return new MailParser({
    maxChildNodes: limits.maxMimeParts,
    skipImageLinks: true,
    skipTextLinks: true,
    skipTextToHtml: true,
    maxHtmlLengthToParse: MAX_HTML_CHARS,
  })
}

/** Writes one attachment to the folder as it streams (metered, hashed), or drains it past the limit. */
function storeAttachment(parts: Parts, data: AttachmentStream, limits: AtlasLimits, dir: string): void {
  const position = parts.seen++
  const release = () => data.release?.()
  if (parts.attachments.length >= limits.maxAttachments) {
    parts.skipped += 1
    data.content.on('end', release)
    data.content.resume()
    return
  }
  const path = join(dir, `${position}.bin`)
  const meter = new Meter(limits.maxAttachmentBytes)
  const entry: ParsedAttachment = {
    position,
    filename: data.filename ? clip(data.filename, 500) : null,
    contentType: clip(data.contentType || 'application/octet-stream', 200).toLowerCase(),
    contentId: data.contentId ? clip(data.contentId, 500) : null,
    inline: data.contentDisposition === 'inline' || Boolean(data.related),
    sizeBytes: 0,
    sha256: '',
    path,
  }
  parts.attachments.push(entry)
  parts.writes.push(pipeline(data.content, meter, createWriteStream(path)).then(() => {
    entry.sizeBytes = meter.size
    entry.sha256 = meter.hash.digest('hex')
    if (meter.overLimit) parts.problems.push(`attachment ${position}${entry.filename ? ` (${entry.filename})` : ''} is ${formatBytes(meter.size)}, over the ${formatBytes(limits.maxAttachmentBytes)} limit (ATLAS_MAX_ATTACHMENT_BYTES)`)
  }).finally(release))
}

function listenToParts(parser: MailParser, limits: AtlasLimits, dir: string): Parts {
  const parts: Parts = { headers: new Map(), attachments: [], writes: [], problems: [], seen: 0, skipped: 0 }
  parser.on('headers', (value: Headers) => {
    parts.headers = value
  })
  parser.on('headerLines', (value: HeaderLines) => {
    parts.lines = value
  })
  parser.on('data', (data: AttachmentStream | MessageText) => {
    if (data.type === 'text') {
      parts.text = data
      return
    }
    storeAttachment(parts, data, limits, dir)
  })
  return parts
}

/** Feeds the source to the parser and waits for every attachment's write; a parser error quarantines. */
async function feed(parser: MailParser, source: Buffer, parts: Parts, limits: AtlasLimits): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      parser.once('error', reject)
      parser.once('end', () => resolve())
      parser.end(source)
    })
    await Promise.all(parts.writes)
  }
  catch (error) {
    throw new QuarantineError(describeParserError(error as Error, limits))
  }
}

/** What the hub shows next to the message: undecodable text, cut or dropped bodies, an unusable From, no Message-ID. */
function warningsOf(parts: Parts, from: { address?: string } | undefined): string[] {
  const { headers, text } = parts
  const rawText = text?.text ?? ''
  const rawHtml = typeof text?.html === 'string' ? text.html : null
  const warnings: string[] = []
  if (rawText.includes('\uFFFD')) warnings.push('the text holds bytes that could not be decoded (wrong or unknown charset); shown with replacement characters')
  if (rawText.length > MAX_TEXT_CHARS) warnings.push(`text body cut to ${MAX_TEXT_CHARS} characters`)
  if (rawHtml && rawHtml.length > MAX_HTML_CHARS) warnings.push(`HTML body over ${MAX_HTML_CHARS} characters: not kept, text only`)
  if (text?.textConversionError) warnings.push(`HTML could not be converted to text: ${clip(text.textConversionError.message, 200)}`)
  if (from?.address && !usableAddress(from.address)) warnings.push(`the From header holds no usable address ("${clip(from.address, 100)}")`)
  if (!headers.get('message-id')) warnings.push('no Message-ID header: keyed on the SHA-256 of the raw source')
  return warnings
}

function toParsedMessage(parts: Parts): ParsedMessage {
  const { headers, text } = parts
  const from = addresses(headers.get('from'))[0]
  const replyTo = addresses(headers.get('reply-to'))[0]
  const date = headers.get('date')
  const rawText = text?.text ?? ''
  const rawHtml = typeof text?.html === 'string' ? text.html : null
  const warnings = warningsOf(parts, from)
  return {
    messageId: normaliseMessageId(headerText(headers, 'message-id')),
    fromAddress: usableAddress(from?.address),
    fromName: from?.name ? clip(from.name, 300) : null,
    toAddresses: addressList(headers.get('to')),
    ccAddresses: addressList(headers.get('cc')),
    replyTo: usableAddress(replyTo?.address),
    subject: clip(headerText(headers, 'subject') ?? '', 1000),
    sentAt: date instanceof Date && !Number.isNaN(date.getTime()) ? date : null,
    inReplyTo: normaliseMessageId(headerText(headers, 'in-reply-to')),
    threadReferences: referenceList(headers),
    headers: headerLines(parts.lines),
    textBody: clip(rawText, MAX_TEXT_CHARS),
    htmlBody: rawHtml && rawHtml.length <= MAX_HTML_CHARS ? clip(rawHtml, MAX_HTML_CHARS) : null,
    warnings,
    attachments: parts.attachments,
  }
}

export async function parseMessage(raw: Buffer, options: ParseOptions): Promise<ParsedMessage> {
  const { limits, dir } = options
  const parser = createParser(limits)
  const parts = listenToParts(parser, limits, dir)
  const source = options.headersOnly ? Buffer.concat([raw, Buffer.from('\r\n\r\n')]) : raw
  await feed(parser, source, parts, limits)
  const parsed = toParsedMessage(parts)
  if (parts.skipped > 0) {
    throw new QuarantineError(`${parts.attachments.length + parts.skipped} attachments, over the limit of ${limits.maxAttachments} (ATLAS_MAX_ATTACHMENTS)`, parsed)
  }
  if (parts.problems.length > 0) throw new QuarantineError(parts.problems.join('; '), parsed)
  return parsed
}
