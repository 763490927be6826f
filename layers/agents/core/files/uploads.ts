// An upload of files for the agents (the chat's paperclip, a custom agent run's inputs), in
// this order: how many, how large, the person's daily quota; then ClamAV on every file BEFORE
// anything else reads a byte (an infected file is refused, audited without its bytes, and
// never stored); then the type from the bytes against the name; then the text. All the files
// of one upload are accepted together or none is. An accepted file waits, given to no run,
// until a chat turn or a run takes it (attachFiles); the sweeper removes it after a day.
import { createHash } from 'node:crypto'
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { recordAudit } from '#db/audit'
import { agentFiles } from '#db/schema/agent-files'
import { EngineError } from '../engine/errors'
import { detectFile } from './detect'
import { extractFileText } from './extract'
import type { FileLimits } from './limits'
import type { FileGuards } from './ports'

export interface UploadPart { name: string, bytes: Buffer }
export interface UploadedFile { id: string, name: string, contentType: string, size: number, sha256: string }

/** A file name as shown and offered for download: its last path segment, no control characters, at most 200 characters. */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? ''
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001F\u007F"]/g, '').trim().slice(-200)
  return clean || 'file'
}

async function quotaUsed(db: Db, email: string, since: Date): Promise<{ files: number, bytes: number }> {
  const [row] = await db.select({ files: sql<number>`count(*)::int`, bytes: sql<number>`coalesce(sum(${agentFiles.size}), 0)::bigint` })
    .from(agentFiles).where(and(eq(agentFiles.ownerEmail, email), eq(agentFiles.direction, 'in'), gt(agentFiles.createdAt, since)))
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) }
}

export async function uploadFiles(
  db: Db,
  guards: FileGuards,
  limits: FileLimits,
  person: { email: string },
  parts: UploadPart[],
  now = new Date(),
): Promise<UploadedFile[]> {
  if (parts.length === 0) throw new EngineError('no_file', 'the form holds no file', 400)
  if (parts.length > limits.perMessage)
    throw new EngineError('too_many_files', `at most ${limits.perMessage} files at once`, 413, { max: limits.perMessage })
  for (const part of parts) {
    if (part.bytes.length === 0)
      throw new EngineError('empty_file', `${cleanFileName(part.name)} is empty`, 400, { name: cleanFileName(part.name) })
    if (part.bytes.length > limits.maxFileBytes)
      throw new EngineError('file_too_large', `${cleanFileName(part.name)} is larger than ${limits.maxFileBytes} bytes`, 413, {
        name: cleanFileName(part.name),
        max: limits.maxFileBytes,
      })
  }
  const used = await quotaUsed(db, person.email, new Date(now.getTime() - 24 * 3600_000))
  const adding = parts.reduce((sum, part) => sum + part.bytes.length, 0)
  if (used.files + parts.length > limits.perDay || used.bytes + adding > limits.bytesPerDay) {
    throw new EngineError(
      'quota_exceeded',
      `your 24-hour allowance is ${limits.perDay} files and ${limits.bytesPerDay} bytes (used: ${used.files} files, ${used.bytes} bytes)`,
      429,
      { used, limits: { files: limits.perDay, bytes: limits.bytesPerDay } },
    )
  }
  const scanned: Array<UploadPart & { name: string, sha256: string, scanner: string }> = []
  for (const part of parts) {
    const name = cleanFileName(part.name)
    const sha256 = createHash('sha256').update(part.bytes).digest('hex')
    const verdict = await guards.scan(part.bytes)
    if (verdict.verdict === 'infected') {
      await recordAudit(db, {
        actor: person.email,
        action: 'agent_file_infected',
        target: name,
        details: { sha256, size: part.bytes.length, signature: verdict.signature ?? null, scanner: verdict.scanner },
      })
      throw new EngineError('infected', `${name} is infected (${verdict.signature ?? 'unknown signature'}): refused, nothing stored`, 422, {
        name,
        signature: verdict.signature ?? null,
      })
    }
    if (verdict.verdict !== 'clean')
      throw new EngineError('scan_failed', `${name} could not be scanned (${verdict.reason ?? 'no verdict'}): refused`, 503, { name })
    scanned.push({ ...part, name, sha256, scanner: verdict.scanner })
  }
  const ready = []
  for (const part of scanned) {
    const detection = await detectFile(part.name, part.bytes)
    if (!detection.ok)
      throw new EngineError(detection.code, `${part.name}: ${detection.message}`, 415, {
        name: part.name,
        detected: detection.detected,
        declared: detection.declared,
      })
    let text: string | null
    try {
      text = await extractFileText(detection.kind, part.bytes)
    }
    catch (error) {
      throw new EngineError(
        'unreadable_file',
        `${part.name}: its text could not be read (${(error as Error).message.slice(0, 200)})`,
        422,
        { name: part.name },
      )
    }
    ready.push({
      ownerEmail: person.email,
      direction: 'in',
      name: part.name,
      contentType: detection.contentType,
      size: part.bytes.length,
      sha256: part.sha256,
      content: part.bytes,
      text,
      scanVerdict: 'clean',
      scanner: part.scanner,
    })
  }
  const rows = await db.insert(agentFiles).values(ready).returning({
    id: agentFiles.id,
    name: agentFiles.name,
    contentType: agentFiles.contentType,
    size: agentFiles.size,
    sha256: agentFiles.sha256,
  })
  await recordAudit(db, {
    actor: person.email,
    action: 'agent_files_uploaded',
    details: { files: rows.map(row => ({ id: row.id, name: row.name, type: row.contentType, size: row.size, sha256: row.sha256 })) },
  })
  return rows
}

export interface GivenFile { id: string, name: string, contentType: string }

/** The person's uploads not yet given to a run, by id; any other id is refused as not found (404). */
export async function pendingUploads(db: Db, person: { email: string }, ids: string[], limits: Pick<FileLimits, 'perMessage'>): Promise<GivenFile[]> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return []
  if (unique.length > limits.perMessage) throw new EngineError('too_many_files', `at most ${limits.perMessage} files per message`, 413, { max: limits.perMessage })
  const rows = await db.select({ id: agentFiles.id, name: agentFiles.name, contentType: agentFiles.contentType }).from(agentFiles)
    .where(and(inArray(agentFiles.id, unique), eq(agentFiles.ownerEmail, person.email), eq(agentFiles.direction, 'in'), isNull(agentFiles.runId)))
  const missing = unique.filter(id => !rows.some(row => row.id === id))
  if (missing.length > 0) throw new EngineError('file_not_found', `no pending upload ${missing.join(', ')}`, 404, { ids: missing })
  return unique.map(id => rows.find(row => row.id === id)!)
}

/** The working-context lines a run is given for its files (the model reads them with read_uploaded_file). */
export function fileSources(files: GivenFile[]): Array<{ kind: string, ref: string, title: string }> {
  return files.map(file => ({ kind: 'uploaded_file', ref: file.id, title: `${file.name} (${file.contentType}; read it with read_uploaded_file)` }))
}

/** Gives the uploads to the run (and its conversation); refused if one was taken meanwhile. */
export async function attachFiles(
  db: Db,
  person: { email: string },
  ids: string[],
  run: { id: string, conversationId: string | null },
): Promise<void> {
  if (ids.length === 0) return
  const unique = [...new Set(ids)]
  const taken = await db
    .update(agentFiles)
    .set({ runId: run.id, conversationId: run.conversationId })
    .where(and(inArray(agentFiles.id, unique), eq(agentFiles.ownerEmail, person.email), isNull(agentFiles.runId)))
    .returning({ id: agentFiles.id })
  if (taken.length !== unique.length) throw new EngineError('file_not_found', 'an upload was given to another run meanwhile', 409)
}
