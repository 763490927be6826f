// POST /api/worksites/chantiers/:id/transition (operator): a status change by the transition table.
export default worksitesTransitionRoute('chantier')
