import { approvalRoute } from '#layers/atlas/server/utils/approval-route'

// Operators and founders (shared/access.ts): refuse a message waiting for approval; no agent starts.
export default defineEventHandler(event => approvalRoute(event, 'reject'))
