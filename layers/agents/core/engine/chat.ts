// The personal agent's chat panel (issue 19, Deliver 6): a conversation is the runs of one
// person that share a conversation id. A new turn is a new run of the person's own agent
// (regime `user`), given the conversation's previous turns and the page it was asked from as
// context. Only the person who holds a conversation sees or continues it (404 otherwise,
// founders included: a conversation is private, the runs page is the audit view). Each turn
// reads the person's active instructions (latest version) and their model choice afresh.
// Files uploaded for a turn are listed in its working context (read_uploaded_file reads them).
import { randomUUID } from 'node:crypto'
import { and, asc, desc, eq, gt, isNotNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import type { RunContextRequest } from './context'
import { EngineError } from './errors'
import { personalAgentOf, type HubPerson } from './api'
import { activeInstructions, instructionSource } from '../instructions/documents'
import { modelChoice } from './models'
import { attachFiles, fileSources, pendingUploads, type GivenFile } from '../files/uploads'
import type { FileLimits } from '../files/limits'
import { createRun, type EngineDeps } from './loop'
import type { AgentRun } from './store'

/** How many previous turns a new turn is given (the most recent ones). */
export const CHAT_HISTORY_TURNS = 8
/** Each previous answer is cut to this many characters in the context. */
const TURN_CHARS = 1500

export const ChatBody = z.object({
  request: z.string().trim().min(1, 'request: say what the agent should do').max(20_000),
  conversationId: z.string().uuid().optional(),
  /** Uploads (POST /api/agents/files) given to this turn: the agent reads them with read_uploaded_file. */
  fileIds: z.array(z.string().uuid()).max(20).default([]),
  /** The page the chat was opened from: its route path and, on a detail page, the record id. */
  page: z.object({
    path: z.string().min(1).max(500).regex(/^\//, 'page.path: a route path starting with /'),
    recordId: z.string().min(1).max(200).optional(),
    title: z.string().max(300).optional(),
  }).strict().optional(),
}).strict()

export type ChatInput = z.output<typeof ChatBody>

export interface ChatTurn { runId: string, request: string, answer: string | null, status: string, error: string | null, createdAt: Date }
export interface ConversationSummary { id: string, title: string, turns: number, lastAt: Date }

/** The turns of one of the person's conversations, oldest first; 404 when it is not theirs (or does not exist). */
export async function conversationTurns(db: Db, person: Pick<HubPerson, 'email'>, conversationId: string): Promise<ChatTurn[]> {
  const rows = await db.select({
    runId: agentRuns.id, request: agentRuns.request, answer: agentRuns.answer, status: agentRuns.status, error: agentRuns.error,
    createdAt: agentRuns.createdAt, actingEmail: agentRuns.actingEmail,
  }).from(agentRuns).where(eq(agentRuns.conversationId, conversationId)).orderBy(asc(agentRuns.createdAt))
  // A conversation belongs to the person of its turns: anyone else is told it does not exist.
  if (rows.length === 0 || rows.some(row => row.actingEmail !== person.email)) throw new EngineError('not_found', `no conversation ${conversationId}`, 404)
  return rows.map(({ actingEmail: _email, ...turn }) => turn)
}

/** The person's conversations, most recent first, titled by their first question. */
export async function listConversations(db: Db, person: Pick<HubPerson, 'email'>, limit = 30): Promise<ConversationSummary[]> {
  const rows = await db.select({
    id: agentRuns.conversationId,
    title: sql<string>`(array_agg(${agentRuns.request} order by ${agentRuns.createdAt}))[1]`,
    turns: sql<number>`count(*)::int`,
    lastAt: sql<string>`max(${agentRuns.createdAt})`,
  }).from(agentRuns)
    .where(and(eq(agentRuns.actingEmail, person.email), isNotNull(agentRuns.conversationId)))
    .groupBy(agentRuns.conversationId)
    .orderBy(desc(sql`max(${agentRuns.createdAt})`))
    .limit(limit)
  return rows.map(row => ({ id: row.id!, title: row.title.replace(/```offline-plan[\s\S]*?```/g, '').trim().slice(0, 120) || row.title.slice(0, 120), turns: Number(row.turns), lastAt: new Date(row.lastAt) }))
}

/** The previous turns as the engine reads them (the memory layer of the system prompt). */
export function historyText(turns: ChatTurn[]): string {
  const recent = turns.slice(-CHAT_HISTORY_TURNS)
  if (recent.length === 0) return ''
  const lines = recent.map(turn => `Person: ${turn.request.slice(0, TURN_CHARS)}\nAgent: ${(turn.answer ?? (turn.error ? `(failed: ${turn.error})` : `(${turn.status})`)).slice(0, TURN_CHARS)}`)
  return `Earlier in this conversation (oldest first):\n${lines.join('\n\n')}`
}

/**
 * The run context of a chat turn: the person's own agent and permissions, the page as working
 * context, the previous turns as memory. The conversation id is checked (the person's own)
 * before anything is written; a new conversation gets a fresh id.
 */
export async function chatRunContext(db: Db, person: HubPerson, body: Omit<ChatInput, 'fileIds'> & { fileIds?: string[] }, files: GivenFile[] = []): Promise<RunContextRequest & { conversationId: string }> {
  const turns = body.conversationId ? await conversationTurns(db, person, body.conversationId) : []
  // Read at every turn: an edit of the instructions, or a new model choice, takes effect on the next run.
  const [active, preference] = await Promise.all([activeInstructions(db, person.email), modelChoice(db, person.email, 'hub_chat')])
  const sources: NonNullable<RunContextRequest['sources']> = []
  if (body.page) {
    sources.push({ kind: 'page', ref: body.page.path, ...(body.page.title ? { title: body.page.title } : {}) })
    if (body.page.recordId) sources.push({ kind: 'record', ref: body.page.recordId, title: `the record shown on ${body.page.path}` })
  }
  sources.push(...fileSources(files))
  return {
    surface: 'hub_chat',
    trigger: 'interactive',
    actingUser: { id: person.id, email: person.email, role: person.role },
    agent: { codename: personalAgentOf(person.email), ownerEmail: person.email },
    regime: 'user',
    request: body.request,
    sources,
    memory: historyText(turns),
    instructions: active ? [{ source: instructionSource(active), text: active.body }] : [],
    modelRequest: { provider: 'auto' },
    modelPreference: preference,
    conversationId: body.conversationId ?? randomUUID(),
  }
}

/**
 * A chat turn written (not driven: the route drives it in the background): the uploads it
 * names are checked (the person's, given to no run yet), listed in its working context, and
 * given to the run before anything reads them.
 */
export async function openChatTurn(deps: EngineDeps, person: HubPerson, body: ChatInput, limits: Pick<FileLimits, 'perMessage'>): Promise<{ run: AgentRun, conversationId: string }> {
  const files = await pendingUploads(deps.db, person, body.fileIds, limits)
  const context = await chatRunContext(deps.db, person, body, files)
  const run = await createRun(deps, context)
  await attachFiles(deps.db, person, files.map(file => file.id), { id: run.id, conversationId: context.conversationId })
  return { run, conversationId: context.conversationId }
}

/** What a stream tick reads: the run's status and the steps written after `afterSeq`. */
export async function runProgress(
  db: Db,
  runId: string,
  afterSeq: number,
): Promise<{ status: string, steps: Array<typeof agentRunSteps.$inferSelect> }> {
  const [run] = await db.select({ status: agentRuns.status }).from(agentRuns).where(eq(agentRuns.id, runId)).limit(1)
  if (!run) throw new EngineError('not_found', `no run ${runId}`, 404)
  const steps = await db
    .select()
    .from(agentRunSteps)
    .where(and(eq(agentRunSteps.runId, runId), gt(agentRunSteps.seq, afterSeq)))
    .orderBy(asc(agentRunSteps.seq))
  return { status: run.status, steps }
}
