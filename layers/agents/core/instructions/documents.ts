// A person's instruction documents (issue 19 Deliver 7, seed 003 I6): Markdown, versioned
// (every save is a new version row, none lost), several per person, one active at a time.
// Only the owner reads or writes a document: anyone else is told it does not exist (404),
// founders included — instructions are personal, like the chat's conversations.
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentInstructionProposals, agentInstructionVersions, agentInstructions } from '#db/schema/agent-instructions'
import { EngineError } from '../engine/errors'

export const INSTRUCTION_BODY_MAX = 40_000

const body = z.string().max(INSTRUCTION_BODY_MAX, `body: ${INSTRUCTION_BODY_MAX} characters at most`)
const title = z.string().trim().min(1, 'title: give the document a title').max(200)

export const CreateInstructionBody = z
  .object({ title, body, active: z.boolean().optional(), note: z.string().max(500).optional() })
  .strict()
export const SaveInstructionBody = z.object({
  body,
  title: title.optional(),
  note: z.string().max(500).optional(),
  /** The version the editor started from: a save over a newer version is refused (409), nothing is lost. */
  baseVersion: z.number().int().min(1).optional(),
}).strict()
export const UpdateInstructionBody = z
  .object({ active: z.boolean().optional(), archived: z.boolean().optional(), title: title.optional() })
  .strict()
  .refine(value => Object.keys(value).length > 0, 'say what changes: active, archived or title')

export type InstructionDocument = typeof agentInstructions.$inferSelect
export type InstructionVersion = typeof agentInstructionVersions.$inferSelect
export type InstructionProposal = typeof agentInstructionProposals.$inferSelect

export interface DocumentSummary extends InstructionDocument { latestVersion: number, pendingProposals: number }
export interface DocumentView { document: InstructionDocument, versions: InstructionVersion[], proposals: InstructionProposal[] }
export interface ActiveInstructions { id: string, title: string, version: number, body: string }

/** The owner's document, or 404 (for anyone else too). */
export async function ownDocument(db: Db, email: string, id: string): Promise<InstructionDocument> {
  const [row] = await db.select().from(agentInstructions).where(and(eq(agentInstructions.id, id), eq(agentInstructions.ownerEmail, email)))
  if (!row) throw new EngineError('not_found', `no instruction document ${id}`, 404)
  return row
}

export async function latestVersion(db: Db, id: string): Promise<InstructionVersion | null> {
  const [row] = await db
    .select()
    .from(agentInstructionVersions)
    .where(eq(agentInstructionVersions.instructionId, id))
    .orderBy(desc(agentInstructionVersions.version))
    .limit(1)
  return row ?? null
}

export async function listDocuments(db: Db, email: string): Promise<DocumentSummary[]> {
  const rows = await db
    .select({
      document: agentInstructions,
      latestVersion: sql<number>`(select coalesce(max(v.version), 0)::int from agent_instruction_versions v where v.instruction_id = agent_instructions.id)`,
      pendingProposals: sql<number>`(select count(*)::int from agent_instruction_proposals p where p.instruction_id = agent_instructions.id and p.status = 'pending')`,
    })
    .from(agentInstructions)
    .where(eq(agentInstructions.ownerEmail, email))
    .orderBy(desc(agentInstructions.active), desc(agentInstructions.updatedAt))
  return rows.map(row => ({ ...row.document, latestVersion: Number(row.latestVersion), pendingProposals: Number(row.pendingProposals) }))
}

export async function documentView(db: Db, email: string, id: string): Promise<DocumentView> {
  const document = await ownDocument(db, email, id)
  const [versions, proposals] = await Promise.all([
    db
      .select()
      .from(agentInstructionVersions)
      .where(eq(agentInstructionVersions.instructionId, id))
      .orderBy(desc(agentInstructionVersions.version)),
    db
      .select()
      .from(agentInstructionProposals)
      .where(eq(agentInstructionProposals.instructionId, id))
      .orderBy(desc(agentInstructionProposals.createdAt)),
  ])
  return { document, versions, proposals }
}

/** A new document with its version 1; active when asked, or when the person has no active document yet. */
export async function createDocument(db: Db, email: string, input: z.output<typeof CreateInstructionBody>): Promise<DocumentView> {
  const id = await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ id: agentInstructions.id })
      .from(agentInstructions)
      .where(and(eq(agentInstructions.ownerEmail, email), eq(agentInstructions.active, true)))
    const active = input.active ?? !current
    if (active && current)
      await tx.update(agentInstructions).set({ active: false, updatedAt: new Date() }).where(eq(agentInstructions.id, current.id))
    const [row] = await tx
      .insert(agentInstructions)
      .values({ ownerEmail: email, title: input.title, active })
      .returning({ id: agentInstructions.id })
    await tx
      .insert(agentInstructionVersions)
      .values({ instructionId: row!.id, version: 1, body: input.body, author: email, note: input.note ?? null })
    return row!.id
  })
  return await documentView(db, email, id)
}

/** Inserts the next version (in the caller's transaction); a concurrent save loses on the unique key and is told so. */
export async function nextVersion(
  tx: Db,
  id: string,
  values: { body: string, author: string, note: string | null },
  base?: number,
): Promise<number> {
  const [row] = await tx
    .select({ latest: sql<number>`coalesce(max(version), 0)::int` })
    .from(agentInstructionVersions)
    .where(eq(agentInstructionVersions.instructionId, id))
  const latest = Number(row!.latest)
  if (base !== undefined && base !== latest) {
    throw new EngineError('version_conflict', `the document moved on: version ${latest} was saved since version ${base}`, 409, {
      latestVersion: latest,
      baseVersion: base,
    })
  }
  await tx.insert(agentInstructionVersions).values({ instructionId: id, version: latest + 1, ...values })
  await tx.update(agentInstructions).set({ updatedAt: new Date() }).where(eq(agentInstructions.id, id))
  return latest + 1
}

export async function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async tx => await work(tx as unknown as Db))
  }
  catch (error) {
    const code = (error as { code?: string, cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code
    if (code === '23505') throw new EngineError('version_conflict', 'another save of this document happened at the same time: reload and save again', 409)
    throw error
  }
}

/** Every save is a new version (the old ones stay); the next run of the agent reads it. */
export async function saveVersion(db: Db, email: string, id: string, input: z.output<typeof SaveInstructionBody>): Promise<DocumentView> {
  const document = await ownDocument(db, email, id)
  if (document.archivedAt) throw new EngineError('archived', 'this document is archived: unarchive it to edit it', 409)
  await inTransaction(db, async (tx) => {
    await nextVersion(tx, id, { body: input.body, author: email, note: input.note ?? null }, input.baseVersion)
    if (input.title) await tx.update(agentInstructions).set({ title: input.title }).where(eq(agentInstructions.id, id))
  })
  return await documentView(db, email, id)
}

/** Restoring is a save of an old version's body (history is never rewritten). */
export async function restoreVersion(db: Db, email: string, id: string, version: number): Promise<DocumentView> {
  await ownDocument(db, email, id)
  const [old] = await db
    .select()
    .from(agentInstructionVersions)
    .where(and(eq(agentInstructionVersions.instructionId, id), eq(agentInstructionVersions.version, version)))
  if (!old) throw new EngineError('not_found', `no version ${version} of this document`, 404)
  return await saveVersion(db, email, id, { body: old.body, note: `restored from version ${version}` })
}

/** Makes a document the active one (the others stop being active), or none; archives or renames it. */
export async function updateDocument(
  db: Db,
  email: string,
  id: string,
  input: z.output<typeof UpdateInstructionBody>,
): Promise<DocumentView> {
  const document = await ownDocument(db, email, id)
  const archive = input.archived ?? document.archivedAt !== null
  if (input.active && archive) throw new EngineError('archived', 'an archived document cannot be the active one', 409)
  await inTransaction(db, async (tx) => {
    if (input.active)
      await tx
        .update(agentInstructions)
        .set({ active: false, updatedAt: new Date() })
        .where(and(eq(agentInstructions.ownerEmail, email), eq(agentInstructions.active, true)))
    await tx
      .update(agentInstructions)
      .set({
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.archived !== undefined
          ? { archivedAt: input.archived ? (document.archivedAt ?? new Date()) : null, ...(input.archived ? { active: false } : {}) }
          : {}),
        ...(input.title ? { title: input.title } : {}),
        updatedAt: new Date(),
      })
      .where(eq(agentInstructions.id, id))
  })
  return await documentView(db, email, id)
}

/** The person's active document at its latest version (what the next run reads), or null. */
export async function activeInstructions(db: Db, email: string): Promise<ActiveInstructions | null> {
  const [row] = await db
    .select({
      id: agentInstructions.id,
      title: agentInstructions.title,
      version: agentInstructionVersions.version,
      body: agentInstructionVersions.body,
    })
    .from(agentInstructions)
    .innerJoin(agentInstructionVersions, eq(agentInstructionVersions.instructionId, agentInstructions.id))
    .where(and(eq(agentInstructions.ownerEmail, email), eq(agentInstructions.active, true), isNull(agentInstructions.archivedAt)))
    .orderBy(desc(agentInstructionVersions.version))
    .limit(1)
  return row ?? null
}

/** The prompt source naming the document and the version a run used. */
export function instructionSource(active: Pick<ActiveInstructions, 'id' | 'version'>): string {
  return `instructions:${active.id}@v${active.version}`
}
