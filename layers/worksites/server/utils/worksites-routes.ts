// The routes the four levels share, built once: detail, transition, assignment and timeline
// of a project, chantier, job or task (each route file names its entity and exports one).
import { z } from 'zod'
import { getItem, type ItemEntity } from '../../core/items'
import { getProject } from '../../core/projects'
import { entityTimeline } from '../../core/timeline'
import { assign, transition } from '../../core/transitions'
import type { Entity } from '../../core/vocabulary'
import type { EntityView } from '../../core/views'
import { notFound } from '../../core/errors'
import { AssignInput, TransitionInput } from '../../shared/api'

export const IdParams = z.object({ id: z.uuid() })

async function view<E extends Entity>(entity: E, id: string): Promise<EntityView<E>> {
  const db = await useDb()
  const found = entity === 'project' ? await getProject(db, id) : await getItem(db, entity as ItemEntity, id)
  if (!found) throw notFound(entity, id)
  // The narrowing on `entity` does not reach E: the branch taken is the view of E.
  return found as EntityView<E>
}

/** GET …/:id — the entity's view (core/views.ts). */
export function worksitesDetailRoute<E extends Entity>(entity: E) {
  return defineEventHandler(async (event) => {
    const { id } = await worksitesParams(event, IdParams)
    return await worksitesCall(() => view(entity, id))
  })
}

/** POST …/:id/transition { to, reason?, position? } — 400 unknown status, 409 illegal_transition naming the allowed ones. */
export function worksitesTransitionRoute<E extends Entity>(entity: E) {
  return defineEventHandler(async (event) => {
    const { id } = await worksitesParams(event, IdParams)
    const body = await worksitesBody(event, TransitionInput)
    const user = currentUser(event)
    return await worksitesCall(async () => {
      await transition(await useDb(), entity, id, { to: body.to, reason: body.reason, position: body.position, actor: user.email })
      return await view(entity, id)
    })
  })
}

/** POST …/:id/assign { owner } — an agent of the registry or a hub user (400 unknown_owner), or null. */
export function worksitesAssignRoute<E extends Entity>(entity: E) {
  return defineEventHandler(async (event) => {
    const { id } = await worksitesParams(event, IdParams)
    const { owner } = await worksitesBody(event, AssignInput)
    const user = currentUser(event)
    return await worksitesCall(async () => {
      await assign(await useDb(), entity, id, owner, user.email)
      return await view(entity, id)
    })
  })
}

/** GET …/:id/timeline — message, spawns, QA, lessons, iterations, transitions and assignments, newest first. */
export function worksitesTimelineRoute(entity: Entity) {
  return defineEventHandler(async (event) => {
    const { id } = await worksitesParams(event, IdParams)
    return await worksitesCall(async () => ({ items: await entityTimeline(await useDb(), useTimelineSources(), entity, id) }))
  })
}
