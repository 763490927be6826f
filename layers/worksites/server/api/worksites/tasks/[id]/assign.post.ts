// POST /api/worksites/tasks/:id/assign (operator): an agent of the registry, a hub user, or nobody.
export default worksitesAssignRoute('task')
