// GET /api/worksites/chantiers/:id (any signed-in role).
export default worksitesDetailRoute('chantier')
