// POST /api/worksites/projects/:id/transition (operator): a status change by the transition table.
export default worksitesTransitionRoute('project')
