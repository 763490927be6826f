import { AnswerInput } from '#layers/worksites/shared/api'

// Operator: a question answered (open → answered), the answer kept on the record.
export default registryActionRoute(['questions'], AnswerInput, body => ({ to: 'answered', resolution: body.answer }))
