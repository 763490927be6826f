// The memory API's inputs (checked by zod at the route boundary) and how the core's errors
// become HTTP answers with a machine-readable code.
import { z } from 'zod'
import { MEM_VAULT_SPACES } from '#db/schema/mem'
import { RecallInputError } from './recall/engine'
import { BELOW_FLOOR, DEFAULT_K, MAX_K, RECALL_MODES } from './recall/types'
import { ScopeError } from './sources'
import { VaultPathError } from './vault/paths'
import { PromoteError } from './vault/promote'

export const RecallQuery = z.object({
  q: z.string().trim().min(1, 'q (the query) is required').max(2000),
  k: z.coerce.number().int().min(1).max(MAX_K).default(DEFAULT_K),
  mode: z.enum(RECALL_MODES).default('hybrid'),
  scope: z.string().trim().max(300).optional(),
  agent: z.string().trim().min(1).max(64).optional(),
  tenant: z.string().trim().min(1).max(64).optional(),
  /** Hits below the relevance floor: flagged (default) or dropped. */
  floor: z.enum(BELOW_FLOOR).default('flag'),
})

export const NotesQuery = z.object({
  space: z.enum(MEM_VAULT_SPACES).optional(),
  q: z.string().trim().max(200).optional(),
})

export const NotePathQuery = z.object({ path: z.string().min(1).max(1024) })
export const PromoteBody = z.object({ path: z.string().min(1).max(1024) })

export interface MemoryApiError {
  statusCode: number
  statusMessage: string
  data: { code: string }
}

const PROMOTE_STATUS: Record<PromoteError['code'], number> = { not_inbox: 400, no_actor: 400, not_found: 404, exists: 409, broken_frontmatter: 422 }

export function memoryApiError(error: unknown): MemoryApiError | null {
  if (error instanceof RecallInputError || error instanceof ScopeError || error instanceof VaultPathError) {
    return { statusCode: 400, statusMessage: error.message, data: { code: error.code } }
  }
  if (error instanceof PromoteError)
    return { statusCode: PROMOTE_STATUS[error.code], statusMessage: error.message, data: { code: error.code } }
  return null
}
