// POST /api/worksites/jobs/:id/assign (operator): an agent of the registry, a hub user, or nobody.
export default worksitesAssignRoute('job')
