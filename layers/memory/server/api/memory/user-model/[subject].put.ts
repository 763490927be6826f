import { z } from 'zod'
import { saveDimension } from '#layers/memory/core/user-model-editor'
import { USER_DIMENSIONS } from '#layers/memory/core/user-model/slices'

const Params = z.object({ subject: z.string().regex(/^[\w.+@-]{1,120}$/, 'subject: an e-mail address or a short handle') })
const Body = z.object({
  dimension: z.enum(USER_DIMENSIONS),
  value: z.record(z.string().min(1).max(100), z.unknown()),
}).strict()

// Founders only (shared/access.ts): one dimension of one person's user model replaced,
// audited (the keys, never the values).
export default defineEventHandler(async (event) => {
  const { subject } = await getValidatedRouterParams(event, Params.parse)
  const { dimension, value } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  try {
    return await saveDimension(await useDb(), { subject, dimension, value, actor: user.email })
  }
  catch (error) {
    throwMemoryEditError(error)
  }
})
