import { updateProject } from '#layers/worksites/core/projects'
import { ProjectPatch } from '#layers/worksites/shared/api'

// Operator: a project's name, repository, mission brief or tenant.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const body = await worksitesBody(event, ProjectPatch)
  const user = currentUser(event)
  return await worksitesCall(async () => updateProject(await useDb(), id, body, user.email))
})
