// The ports draft_custom_agent reaches (the drafts table), wired by the hub's engine.
import type { Db } from '#db/connection'
import type { ToolPorts } from '../engine/ports'
import { customToolRegistry } from './delegation'
import { createDraft, withdrawDraft } from './drafts'

export function draftPorts(db: Db): Required<Pick<ToolPorts, 'draftCustomAgent' | 'discardCustomAgentDraft'>> {
  return {
    draftCustomAgent: async (input) => {
      const draft = await createDraft(db, customToolRegistry(), input)
      return { draftId: draft.id, link: `/hub/agents/custom/drafts/${draft.id}`, suggestedTools: draft.proposal.suggestedTools, refusedTools: draft.proposal.refusedTools }
    },
    discardCustomAgentDraft: id => withdrawDraft(db, id),
  }
}
