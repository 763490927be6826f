import { z } from 'zod'
import { unarchiveLesson } from '#layers/learning/core/nightly/forgetting-curve'

const Params = z.object({ id: z.coerce.number().int().positive() })

// Operator and up (shared/access.ts): undoes the forgetting curve — the lesson is back in recall.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  try {
    return await unarchiveLesson(await useDb(), id)
  }
  catch (error) {
    throwLearningHttpError(error)
  }
})
