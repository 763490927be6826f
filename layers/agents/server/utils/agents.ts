import { agentsApiError } from '../../core/api'

/** Rethrows an agents core error as an HTTP error with a machine-readable body. */
export function throwAgentsHttpError(error: unknown): never {
  const shape = agentsApiError(error)
  if (shape) throw createError(shape)
  throw error
}
