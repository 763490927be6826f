// The user model's slices (§4.7): each dimension on its own, and the composite `core` —
// communication style, cognitive preferences and appointment slots — calibrated for
// briefing injection (under 1,000 tokens) and never holding the private dimension.
import { MEM_USER_DIMENSIONS, type MemUserDimension } from '#db/schema/mem'

export const USER_SLICES = ['core', ...MEM_USER_DIMENSIONS] as const
export type UserSlice = typeof USER_SLICES[number]
export type { MemUserDimension as UserDimension }
export { MEM_USER_DIMENSIONS as USER_DIMENSIONS }

/** The briefing budget of the core slice. */
export const CORE_TOKEN_BUDGET = 1000

export function isUserSlice(value: string): value is UserSlice {
  return (USER_SLICES as readonly string[]).includes(value)
}

/**
 * A conservative token estimate (≥ what BPE tokenizers count for French and English text:
 * about one token per 3 characters, never fewer than the words and punctuation marks).
 */
export function estimateTokens(text: string): number {
  const pieces = text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0
  return Math.max(Math.ceil(text.length / 3), pieces)
}
