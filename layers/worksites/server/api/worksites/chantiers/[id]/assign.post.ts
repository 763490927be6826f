// POST /api/worksites/chantiers/:id/assign (operator): an agent of the registry, a hub user, or nobody.
export default worksitesAssignRoute('chantier')
