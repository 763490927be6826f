import { OutcomeInput } from '#layers/worksites/shared/api'

// Operator: a négociation won or lost, with its note.
export default registryActionRoute(['negociations'], OutcomeInput, body => ({ to: body.outcome, resolution: body.note ?? null }))
