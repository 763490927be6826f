import { z } from 'zod'
import { listSkillProposals, proposalStats, SKILL_PROPOSAL_STATUSES } from '#layers/learning/core/skills/proposals'

const Query = z.object({ status: z.enum(SKILL_PROPOSAL_STATUSES).optional() })

// Any signed-in role: the skill proposals with their evidence, and the statistics.
export default defineEventHandler(async (event) => {
  const query = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  return { proposals: await listSkillProposals(db, { status: query.status }), stats: await proposalStats(db, new Date()) }
})
