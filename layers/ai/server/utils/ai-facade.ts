import { createAiFacade, type AiFacade } from '../../core/facade'
import { apiError } from '../../core/api-errors'

let facade: AiFacade | undefined

/** The hub's AI facade: keys from the server's environment, routing, tenants and ledger in its database. */
export function useAiFacade(): AiFacade {
  facade ??= createAiFacade({ env: process.env, db: () => useDb() })
  return facade
}

/** Writes the ledger rows still queued (the server is stopping: none is lost). */
export async function flushAiFacade(): Promise<void> {
  await facade?.flush()
}

/** Rethrows a facade error as an HTTP error with a machine-readable body (messages already redacted). */
export function throwAiHttpError(error: unknown): never {
  const shape = apiError(error)
  if (shape) throw createError(shape)
  throw error
}
