import { CancelInput } from '#layers/worksites/shared/api'

// Operator: any registry record cancelled with its reason (the classifier's calibration counts it).
export default registryActionRoute(['runs', 'questions', 'negociations', 'conseils'], CancelInput, body => ({ to: 'cancelled', reason: body.reason }))
