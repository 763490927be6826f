import { MissionBriefError } from '../../core/mission-briefs'
import { ReflexEditError } from '../../core/reflex-editor'
import { UserModelEditError } from '../../core/user-model-editor'

const STATUS: Record<string, number> = { reflex_changed_meanwhile: 409, not_found: 404, reflex_too_large: 413 }

/** Rethrows an edit refusal of the memory pages as a 4xx with a machine-readable body. */
export function throwMemoryEditError(error: unknown): never {
  if (error instanceof ReflexEditError || error instanceof UserModelEditError || error instanceof MissionBriefError) {
    const details = error instanceof ReflexEditError ? error.details : {}
    throw createError({ statusCode: STATUS[error.code] ?? 400, statusMessage: error.message, data: { code: error.code, ...details } })
  }
  throw error
}
