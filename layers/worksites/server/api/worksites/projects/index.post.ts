import { createProject } from '#layers/worksites/core/projects'
import { ProjectCreate } from '#layers/worksites/shared/api'

// Operator: a project for a tenant (or the studio), with its mission brief and repository.
export default defineEventHandler(async (event) => {
  const body = await worksitesBody(event, ProjectCreate)
  const user = currentUser(event)
  return await worksitesCall(async () => createProject(await useDb(), body, user.email))
})
