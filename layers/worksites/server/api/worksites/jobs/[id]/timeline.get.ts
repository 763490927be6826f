// GET /api/worksites/jobs/:id/timeline (any signed-in role).
export default worksitesTimelineRoute('job')
