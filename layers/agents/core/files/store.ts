// The agent files a run reads and writes, and who may download one. A run reads the uploads
// it was given, or those of earlier turns of its conversation (the same person's); it
// produces text files linked to it. A file is downloaded by whoever may see its run (the run
// page's rule: the person it acted for, its owner, a founder, a person the custom agent is
// shared with) or, not yet given to a run, by its uploader; anyone else is told it does not
// exist (404, never 403).
import { createHash } from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentFiles } from '#db/schema/agent-files'
import { agentRuns } from '#db/schema/agent-runs'
import { seesRun } from '../engine/api'
import { EngineError } from '../engine/errors'
import type { PersonRole } from '../engine/vocabulary'
import type { FileLimits } from './limits'
import type { FileGuards } from './ports'

/** What one read_uploaded_file call returns of a file's text (the model pages with `offset`). */
export const FILE_CHUNK_CHARS = 6000

export const PRODUCED_TYPES = { 'text/plain': '.txt', 'text/markdown': '.md', 'text/csv': '.csv', 'application/json': '.json' } as const
export type ProducedType = keyof typeof PRODUCED_TYPES

export interface RunFile { id: string, direction: 'in' | 'out', name: string, contentType: string, size: number, sha256: string, createdAt: Date }

export interface AgentFilePorts {
  /** An upload the run may read, its text fenced as untrusted data, from `offset`; `ocr`: read from an image now (never to be stored). */
  read: (runId: string, id: string, offset: number) => Promise<{ text: string, ocr: boolean, name: string }>
  produce: (runId: string, input: { name: string, type: ProducedType, content: string }) => Promise<RunFile>
  /** Undo of a produced file: deletes it; false when it is gone. */
  remove: (id: string) => Promise<boolean>
}

const fileColumns = {
  id: agentFiles.id,
  direction: agentFiles.direction,
  name: agentFiles.name,
  contentType: agentFiles.contentType,
  size: agentFiles.size,
  sha256: agentFiles.sha256,
  createdAt: agentFiles.createdAt,
}

export async function runFiles(db: Db, runId: string): Promise<RunFile[]> {
  const rows = await db.select(fileColumns).from(agentFiles).where(eq(agentFiles.runId, runId)).orderBy(asc(agentFiles.createdAt))
  return rows as RunFile[]
}

/** A produced file's name: the model's, cleaned to a plain file name, ending with its type's extension. */
export function producedName(name: string, type: ProducedType): string {
  const extension = PRODUCED_TYPES[type]
  const plain = name.replace(/[^\p{L}\p{N} ._-]/gu, '_').replace(/^[.\s]+/, '').trim().slice(0, 120) || 'file'
  return plain.toLowerCase().endsWith(extension) ? plain : `${plain}${extension}`
}

export function agentFilePorts(db: Db, guards: Pick<FileGuards, 'ocr' | 'fence'>, limits: Pick<FileLimits, 'producedMaxBytes' | 'producedPerRun'>): AgentFilePorts {
  const runOf = async (runId: string) => {
    const [run] = await db
      .select({ id: agentRuns.id, actingEmail: agentRuns.actingEmail, conversationId: agentRuns.conversationId })
      .from(agentRuns)
      .where(eq(agentRuns.id, runId))
    if (!run) throw new EngineError('not_found', `no run ${runId}`, 404)
    return run
  }
  return {
    read: async (runId, id, offset) => {
      const run = await runOf(runId)
      const [file] = await db.select().from(agentFiles).where(and(eq(agentFiles.id, id), eq(agentFiles.direction, 'in')))
      const given
        = file
          && (file.runId === run.id
            || (run.conversationId !== null && file.conversationId === run.conversationId && file.ownerEmail === run.actingEmail))
      if (!file || !given) throw new EngineError('file_not_found', `no uploaded file ${id} in this run or its conversation`, 404)
      // An image's text is read now and kept nowhere but in this answer.
      const ocr = file.text === null && file.contentType.startsWith('image/')
      const text = file.text ?? (ocr ? (await guards.ocr(file.content)).trim() : '')
      const chunk = text.slice(offset, offset + FILE_CHUNK_CHARS)
      const next = offset + chunk.length < text.length ? offset + chunk.length : null
      const fence = guards.fence()
      const fenced = [
        `File ${fence.line(file.name, 200)} (${file.contentType}, ${file.size} bytes${ocr ? ', read by OCR' : ''}): characters ${offset}–${offset + chunk.length} of ${text.length}${next === null ? '' : `; read on with offset ${next}`}.`,
        ...fence.block(`the text of the uploaded file ${fence.line(file.name, 200)}`, [chunk || '(no text)']),
      ].join('\n')
      return { text: fenced, ocr, name: file.name }
    },
    produce: async (runId, input) => {
      const run = await runOf(runId)
      const bytes = Buffer.from(input.content, 'utf8')
      if (bytes.length > limits.producedMaxBytes) throw new EngineError('file_too_large', `a produced file is at most ${limits.producedMaxBytes} bytes`, 413)
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(agentFiles).where(and(eq(agentFiles.runId, runId), eq(agentFiles.direction, 'out')))
      if (Number(count?.n ?? 0) >= limits.producedPerRun) throw new EngineError('too_many_files', `a run produces at most ${limits.producedPerRun} files`, 413)
      const [row] = await db.insert(agentFiles).values({
        ownerEmail: run.actingEmail, runId, conversationId: run.conversationId, direction: 'out', name: producedName(input.name, input.type),
        contentType: input.type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), content: bytes, text: null, scanVerdict: 'not_scanned', scanner: null,
      }).returning(fileColumns)
      return row as RunFile
    },
    remove: async (id) => {
      const deleted = await db.delete(agentFiles).where(and(eq(agentFiles.id, id), eq(agentFiles.direction, 'out'))).returning({ id: agentFiles.id })
      return deleted.length > 0
    },
  }
}

export interface Download { name: string, contentType: string, content: Buffer }

/**
 * A file for the person downloading it, if they may see its run (`sharedAgent`: whether a
 * custom agent's activity is shared with them) or uploaded it and it is given to no run yet.
 */
export async function downloadFile(
  db: Db,
  viewer: { email: string, role: PersonRole },
  id: string,
  sharedAgent?: (agent: string) => Promise<boolean>,
): Promise<Download> {
  const [file] = await db
    .select({
      name: agentFiles.name,
      contentType: agentFiles.contentType,
      content: agentFiles.content,
      ownerEmail: agentFiles.ownerEmail,
      runId: agentFiles.runId,
    })
    .from(agentFiles)
    .where(eq(agentFiles.id, id))
  const missing = new EngineError('not_found', `no file ${id}`, 404)
  if (!file) throw missing
  if (!file.runId) {
    if (file.ownerEmail !== viewer.email) throw missing
    return file
  }
  const [run] = await db
    .select({ actingEmail: agentRuns.actingEmail, ownerEmail: agentRuns.ownerEmail, agent: agentRuns.agent })
    .from(agentRuns)
    .where(eq(agentRuns.id, file.runId))
  if (!run) throw missing
  if (!(await seesRun(run, viewer, sharedAgent))) throw missing
  return file
}

/** A Content-Disposition that no name can break: an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7E]/g, '_').replace(/["\\;]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`
}
