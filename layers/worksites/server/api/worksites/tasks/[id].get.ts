// GET /api/worksites/tasks/:id (any signed-in role).
export default worksitesDetailRoute('task')
