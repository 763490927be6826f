// GET /api/worksites/projects/:id/timeline (any signed-in role).
export default worksitesTimelineRoute('project')
