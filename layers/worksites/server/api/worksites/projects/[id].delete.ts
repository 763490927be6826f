import { deleteProject } from '#layers/worksites/core/projects'

// Operator: deletes a project without open chantiers (409 has_open_children, with their count, otherwise).
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const user = currentUser(event)
  return await worksitesCall(async () => deleteProject(await useDb(), id, user.email))
})
