// GET /api/worksites/chantiers/:id/timeline (any signed-in role).
export default worksitesTimelineRoute('chantier')
