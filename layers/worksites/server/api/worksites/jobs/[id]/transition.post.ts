// POST /api/worksites/jobs/:id/transition (operator): a status change by the transition table.
export default worksitesTransitionRoute('job')
