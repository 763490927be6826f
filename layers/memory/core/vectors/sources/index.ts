// The sources of the vector index, in the seed's order, then the skills (the router's candidates).
import type { SourceType } from '../../sources'
import { agentSource, iterationSource } from './agents'
import { doctrineSource, drillSource, procedureSource } from './learning'
import { scarSource, victorySource } from './lessons'
import { projectSource } from './projects'
import { skillSource } from './skills'
import type { SourceAdapter } from './types'
import { noteSource, reflexSource } from './vault'

export const SOURCE_ADAPTERS: Record<SourceType, SourceAdapter> = {
  scar: scarSource,
  victory: victorySource,
  reflex: reflexSource,
  note: noteSource,
  doctrine: doctrineSource,
  project: projectSource,
  agent: agentSource,
  drill: drillSource,
  procedure: procedureSource,
  iteration: iterationSource,
  skill: skillSource,
}

export type { SourceAdapter, SourceContext, SourceDocument, SourceLoad } from './types'
