// The result contract: the file the agent writes (early, then overwritten at each milestone,
// and finally before it ends). It is what the orchestrator decides on; the event stream is
// best effort. A missing or invalid file fails the spawn with the reason shown.
import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import type { Intent } from './vocabulary'

/** The only intents a correction may downgrade to: they produce no code. */
export const CORRECTABLE_INTENTS = ['question', 'negociation', 'run'] as const satisfies readonly Intent[]
export type CorrectableIntent = typeof CORRECTABLE_INTENTS[number]

export const MAX_RESULT_FILE_BYTES = 2 * 1024 * 1024

const Commit = z.union([
  z.string().trim().min(1).max(500).transform((text) => {
    const match = /^([0-9a-f]{7,40})\b\s*[:-]?\s*(.*)$/i.exec(text)
    return match ? { sha: match[1]!, message: match[2] ?? '' } : { sha: '', message: text }
  }),
  z.object({ sha: z.string().trim().max(64).default(''), message: z.string().trim().max(2000).default('') }).loose(),
])

const Correction = z.union([
  z.string().trim().min(1).transform(intent => ({ intent, reason: '' })),
  z.object({ intent: z.string().trim().min(1), reason: z.string().trim().max(4000).default('') }).loose(),
])

export const ResultContractSchema = z.object({
  status: z.string().trim().min(1, 'status is required ("ok" when the work is done)').max(40),
  tenant: z.string().trim().max(200).nullish(),
  routes: z.array(z.string().trim().min(1).max(2000)).max(50, 'routes: at most 50').default([]),
  commits: z.array(Commit).max(200, 'commits: at most 200').default([]),
  summary: z.string().trim().min(1, 'summary is required (markdown)').max(50_000),
  reply_draft: z.string().trim().max(20_000).nullish(),
  intent_correction: Correction.nullish(),
}).loose()

export interface ResultContract {
  status: string
  ok: boolean
  tenant: string | null
  routes: string[]
  commits: Array<{ sha: string, message: string }>
  summary: string
  replyDraft: string | null
  /** The accepted correction (a downgrade to question, negociation or run), if any. */
  intentCorrection: { intent: CorrectableIntent, reason: string } | null
  /** A correction the contract asked for and the guardrail refused. */
  refusedCorrection: { intent: string, reason: string } | null
}

export type ContractReading
  = | { ok: true, contract: ResultContract, raw: Record<string, unknown> }
    | { ok: false, reason: string, raw?: unknown }

export function validateContract(raw: unknown): ContractReading {
  const parsed = ResultContractSchema.safeParse(raw)
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map(issue => `${issue.path.join('.') || '(file)'}: ${issue.message}`)
    return { ok: false, reason: `the result file does not follow the contract: ${problems.join('; ')}`, raw }
  }
  const data = parsed.data
  let intentCorrection: ResultContract['intentCorrection'] = null
  let refusedCorrection: ResultContract['refusedCorrection'] = null
  if (data.intent_correction) {
    const wanted = data.intent_correction.intent
    if ((CORRECTABLE_INTENTS as readonly string[]).includes(wanted))
      intentCorrection = { intent: wanted as CorrectableIntent, reason: data.intent_correction.reason }
    else refusedCorrection = { intent: wanted, reason: data.intent_correction.reason }
  }
  return {
    ok: true,
    raw: raw as Record<string, unknown>,
    contract: {
      status: data.status,
      ok: data.status.toLowerCase() === 'ok',
      tenant: data.tenant ?? null,
      routes: data.routes,
      commits: data.commits.map(c => ({ sha: c.sha, message: c.message })),
      summary: data.summary,
      replyDraft: data.reply_draft ?? null,
      intentCorrection,
      refusedCorrection,
    },
  }
}

/** Reads and checks the result file; every way it can be wrong is a reason in words. */
export async function readResultFile(path: string): Promise<ContractReading> {
  let size: number
  try {
    size = (await stat(path)).size
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, reason: `no result file: the agent did not write ${path}` }
    return { ok: false, reason: `the result file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` }
  }
  if (size === 0) return { ok: false, reason: 'the result file is empty' }
  if (size > MAX_RESULT_FILE_BYTES) return { ok: false, reason: `the result file is ${size} bytes, over the ${MAX_RESULT_FILE_BYTES}-byte limit` }
  const text = await readFile(path, 'utf8')
  let raw: unknown
  try {
    raw = JSON.parse(text)
  }
  catch (error) {
    return { ok: false, reason: `the result file is not valid JSON (${(error as Error).message.slice(0, 200)})` }
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'the result file is not a JSON object', raw }
  return validateContract(raw)
}
