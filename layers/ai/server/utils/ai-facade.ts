import { createAiFacade, type AiFacade } from '../../core/facade'
import { apiError } from '../../core/api-errors'

let facade: AiFacade | undefined

/** The hub's AI facade: keys from the server's environment, routing, tenants and ledger in its database. */
export function useAiFacade(): AiFacade {
  facade ??= createAiFacade({ env: process.env, db: () => useDb() })
  return facade
}

/** Rethrows a facade error as an HTTP error with a machine-readable body (messages already redacted). */
export function throwAiHttpError(error: unknown): never {
  const shape = apiError(error)
  if (shape) throw createError(shape)
  throw error
}
