import { listProjects } from '#layers/worksites/core/projects'
import { ProjectListQuery } from '#layers/worksites/shared/api'

// Any signed-in role: projects by tenant, status and text, sorted, paged by cursor.
export default defineEventHandler(async (event) => {
  const query = await worksitesQuery(event, ProjectListQuery)
  return await worksitesCall(async () => listProjects(await useDb(), query))
})
