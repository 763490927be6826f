// Agent descriptors and ReAct iterations (the agents family).
import { agents, agentsReactIterations } from '#db/schema/agents'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

export const agentSource: SourceAdapter = {
  type: 'agent',
  load: async ({ db }) => ({
    documents: (await db.select().from(agents)).map(row => ({
      sourceId: row.codename,
      title: `${row.nickname}${row.role ? ` — ${row.role}` : ''}`,
      text: joinParts(`${row.nickname} (${row.codename})`, row.role, row.jobMission),
      agent: row.codename,
    })),
  }),
}

export const iterationSource: SourceAdapter = {
  type: 'iteration',
  load: async ({ db }) => ({
    documents: (await db.select().from(agentsReactIterations)).map(row => ({
      sourceId: String(row.id),
      title: `${row.runRef || 'iteration'} #${row.step}${row.agent ? ` (${row.agent})` : ''}`,
      text: joinParts(`Thought: ${row.thought}`, `Action: ${row.action}`, `Observation: ${row.observation}`),
      agent: row.agent,
      metadata: { status: row.status, runRef: row.runRef },
    })),
  }),
}
