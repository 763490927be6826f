// The registries' routes (runs, questions, négociations, conseils): the kind in the path is
// checked, and each action is allowed on its own registry only (another kind: 404).
import { z } from 'zod'
import type { RegistryAction } from '../../core/registry-actions'
import { actOnRecord } from '../../core/registry-actions'
import { RegistryKindSchema, type RegistryKind } from '../../shared/api'

export const RegistryParams = z.object({ kind: RegistryKindSchema, id: z.uuid() })

/**
 * POST /api/worksites/registries/:kind/:id/<action>: `kinds` the action applies to, `input`
 * its body, `toAction` what it does to the record (status, resolution or reason).
 */
export function registryActionRoute<S extends z.ZodType>(kinds: readonly RegistryKind[], input: S, toAction: (body: z.infer<S>) => Omit<RegistryAction, 'actor'>) {
  return defineEventHandler(async (event) => {
    const { kind, id } = await worksitesParams(event, RegistryParams)
    if (!kinds.includes(kind)) throw createError({ statusCode: 404, statusMessage: `No such action on ${kind}.`, data: { code: 'not_found' } })
    const body = await worksitesBody(event, input)
    const user = currentUser(event)
    return await worksitesCall(async () => actOnRecord(await useDb(), kind, id, { ...toAction(body), actor: user.email }))
  })
}
