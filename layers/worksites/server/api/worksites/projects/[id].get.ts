// GET /api/worksites/projects/:id (any signed-in role).
export default worksitesDetailRoute('project')
