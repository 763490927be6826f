import type { H3Event } from 'h3'
import { z } from 'zod'
import { seedBuiltInSkills } from '../../core/builtins'
import { SkillError } from '../../core/errors'
import { syncSkillIndex } from '../../core/memory-index'
import type { Actor } from '../../core/library'

export const SkillIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })
export const skillId = (event: H3Event) => validInput(SkillIdParams, getRouterParams(event)).id

export function skillActor(event: H3Event): Actor {
  const user = currentUser(event)
  return { email: user.email, role: user.role as Actor['role'] }
}

let seeded: Promise<unknown> | undefined

/** The skills library's database, its built-ins seeded (and indexed in the memory) once per process (also seeded by `npm start`). */
export async function useSkillsDb() {
  const db = await useDb()
  seeded ??= seedBuiltInSkills(db).then(async () => await reindexSkills(db), (error: unknown) => {
    seeded = undefined
    throw error
  })
  await seeded
  return db
}

/** Runs a library call; its refusals become HTTP errors with { data: { code, … } }. */
export async function skillCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof SkillError)
      throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code, ...error.details } })
    if (error instanceof z.ZodError) throwBadInput(error)
    throw error
  }
}

/**
 * After a create, save, import, restore or delete: the skill's chunk in the memory's index, so
 * the next routed run recalls it. The write stands if embedding fails (an outage): the router
 * brings the index in line at its next run; the failure is logged.
 */
export async function reindexSkills(db: Awaited<ReturnType<typeof useDb>>): Promise<void> {
  try {
    await syncSkillIndex(db, await useMemoryEmbedder('memory_sync'))
  }
  catch (error) {
    console.warn(`[skills] the memory index of skills was not updated (the router retries at its next run): ${(error as Error).message}`)
  }
}
