// GET /api/worksites/tasks/:id/timeline (any signed-in role).
export default worksitesTimelineRoute('task')
