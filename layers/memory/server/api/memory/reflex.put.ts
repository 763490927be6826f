import { z } from 'zod'
import { saveReflexIndex } from '#layers/memory/core/reflex-editor'

const Body = z.object({
  text: z.string().max(400_000),
  /** The SHA-256 the editor read: a save over someone else's newer copy is refused (409). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
}).strict()

// Operators and founders (a write, shared/access.ts): the reflex memory's index saved
// whole from the hub. A line over 200 characters refuses the save with 400 naming the line
// (data.line); audited in hub_audit.
export default defineEventHandler(async (event) => {
  const { text, sha256 } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  try {
    return await saveReflexIndex(
      { db: await useDb(), reflexDir: useMemoryConfig().reflexDir },
      { text, actor: user.email, expectedSha256: sha256 },
    )
  }
  catch (error) {
    throwMemoryEditError(error)
  }
})
