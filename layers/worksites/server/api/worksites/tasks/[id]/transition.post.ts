// POST /api/worksites/tasks/:id/transition (operator): a status change by the transition table.
export default worksitesTransitionRoute('task')
