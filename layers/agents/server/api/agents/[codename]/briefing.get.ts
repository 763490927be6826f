import { BriefingQuery, CodenameParams } from '#layers/agents/core/api'
import { loadBriefing } from '#layers/agents/core/briefing'
import { missionBriefFrom, scarRecallFrom, userCoreFrom } from '#layers/agents/core/memory-adapters'

// Any signed-in role: the briefing the agent would receive for a task — its tier, the
// relevant scars (own first, then global; a preview, so the recall counters stay as they
// are), the chantier brief when `project` is a chantier id, and the user model's core slice.
export default defineEventHandler(async (event) => {
  const { codename } = await getValidatedRouterParams(event, CodenameParams.parse)
  const query = await getValidatedQuery(event, BriefingQuery.parse)
  const db = await useDb()
  try {
    return await loadBriefing({
      db,
      recallScars: scarRecallFrom({ db, embedder: await useMemoryEmbedder('agents_briefing'), log: line => console.warn(line) }, { readOnly: true }),
      missionBrief: missionBriefFrom(db),
      userCore: userCoreFrom(db),
    }, { codename, tier: query.tier, lang: query.lang, task: query.task, project: query.project, scars: query.scars })
  }
  catch (error) {
    throwAgentsHttpError(error)
  }
})
