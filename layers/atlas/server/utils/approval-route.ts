// The approve and reject routes share this: read the message id and an optional note,
// decide (core/approval.ts) as the signed-in person, answer with what changed — on approval,
// the work record it created (`materialised`). That record gets the pre-creation recall the
// pipeline gives the others, after the commit.
import type { H3Event } from 'h3'
import { decideApproval, recallApproved, type ApprovalDecision } from '../../core/approval'
import { ApprovalBody, MessageParams } from '../../core/schemas'

export async function approvalRoute(event: H3Event, decision: ApprovalDecision) {
  const { id } = await getValidatedRouterParams(event, MessageParams.parse)
  const body = await readValidatedBody(event, ApprovalBody.parse)
  const db = await useDb()
  const result = await decideApproval(db, id, decision, currentUser(event).email, body?.note || undefined)
  if (!result.ok && result.code === 'not_found') throw createError({ statusCode: 404, statusMessage: `No Atlas message #${id}.`, data: { code: 'not_found' } })
  if (!result.ok) {
    throw createError({
      statusCode: 409,
      statusMessage: `Message #${id} is ${result.status}: only a message awaiting approval can be approved or rejected.`,
      data: { code: 'not_awaiting_approval', status: result.status },
    })
  }
  await recallApproved({ db, embedder: () => useMemoryEmbedder('memory_recall'), log: line => console.warn(line) }, result)
  return result
}
