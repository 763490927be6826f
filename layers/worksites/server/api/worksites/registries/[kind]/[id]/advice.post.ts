import { AdviceInput } from '#layers/worksites/shared/api'

// Operator: a conseil given (open → given), the advice kept on the record.
export default registryActionRoute(['conseils'], AdviceInput, body => ({ to: 'given', resolution: body.advice }))
