import { spawnProcess } from '#layers/ai/core/clients/process-runner'
import { insertLedgerRows } from '#layers/ai/core/ledger'
import { DebriefError } from '../../core/debrief/bundle'
import { SKILL_PROPOSAL_ERROR_STATUS, SkillProposalError } from '../../core/skills/proposals'
import { UnarchiveError } from '../../core/nightly/forgetting-curve'

const DEBRIEF_STATUS: Record<DebriefError['code'], number> = { project_not_found: 404, tenant_mismatch: 400, bad_input: 400, roi_guard: 409, model_unavailable: 502 }

/** The model dependencies of a debrief asked from the hub: the hub's facade, the agent CLI, real pauses. */
export async function useDebriefModel() {
  const db = await useDb()
  return {
    ai: useAiFacade(), env: process.env, runner: spawnProcess,
    sleep: (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms)),
    recordLedger: (entry: Parameters<typeof insertLedgerRows>[1][number]) => insertLedgerRows(db, [entry]),
    log: (line: string) => console.warn(line),
  }
}

/** Rethrows a learning core refusal as a 4xx/5xx with a machine-readable body. */
export function throwLearningHttpError(error: unknown): never {
  if (error instanceof DebriefError)
    throw createError({
      statusCode: DEBRIEF_STATUS[error.code],
      statusMessage: error.message,
      data: { code: error.code, ...error.details },
    })
  if (error instanceof SkillProposalError)
    throw createError({
      statusCode: SKILL_PROPOSAL_ERROR_STATUS[error.code],
      statusMessage: error.message,
      data: { code: error.code, ...error.details },
    })
  if (error instanceof UnarchiveError) throw createError({ statusCode: error.code === 'not_found' ? 404 : 409, statusMessage: error.message, data: { code: error.code } })
  throw error
}
