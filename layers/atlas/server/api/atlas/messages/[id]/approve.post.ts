import { approvalRoute } from '#layers/atlas/server/utils/approval-route'

// Operators and founders (shared/access.ts): let a message waiting for approval start its agent.
export default defineEventHandler(event => approvalRoute(event, 'approve'))
