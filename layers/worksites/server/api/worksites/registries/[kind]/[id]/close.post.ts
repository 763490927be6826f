import { CloseInput } from '#layers/worksites/shared/api'

// Operator: a run closed, done or cancelled (a cancelled one counts against the classifier).
export default registryActionRoute(['runs'], CloseInput, body => (body.outcome === 'cancelled'
  ? { to: 'cancelled', reason: body.note || 'closed as cancelled' }
  : { to: 'done', resolution: body.note ?? null }))
