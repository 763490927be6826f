// GET /api/worksites/jobs/:id (any signed-in role).
export default worksitesDetailRoute('job')
