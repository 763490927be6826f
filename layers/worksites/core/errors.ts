// The refusals of the worksites core, each with the HTTP status and the machine-readable code
// the routes answer with (layers/worksites/shared/api.ts, ERROR_CODES). The core throws them;
// the routes turn them into createError bodies ({ data: { code, ... } }) and nothing else.
import type { WorksitesErrorCode } from '../shared/api'
import { allowedTransitions, type Entity } from './vocabulary'

export class WorksitesError extends Error {
  constructor(readonly status: number, readonly code: WorksitesErrorCode, message: string, readonly data: Record<string, unknown> = {}) {
    super(message)
    this.name = 'WorksitesError'
  }
}

export function notFound(entity: string, id: string): WorksitesError {
  return new WorksitesError(404, 'not_found', `No ${entity} ${id}.`, { entity })
}

export function badInput(message: string, field?: string): WorksitesError {
  return new WorksitesError(400, 'bad_input', message, field ? { field } : {})
}

export function illegalTransition(entity: Entity, from: string, to: string): WorksitesError {
  const allowed = [...allowedTransitions(entity, from)]
  const hint = allowed.length ? `allowed: ${allowed.join(', ')}` : 'nothing is allowed from there'
  return new WorksitesError(409, 'illegal_transition', `A ${entity} cannot go from ${from} to ${to} (${hint}).`, { entity, from, to, allowed })
}

/** The shape createError takes, for the routes. */
export function httpErrorOf(error: WorksitesError) {
  return { statusCode: error.status, statusMessage: error.message, data: { code: error.code, ...error.data } }
}
