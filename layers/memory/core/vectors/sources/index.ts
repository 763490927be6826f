// The ten sources of the vector index, in the seed's order.
import type { SourceType } from '../../sources'
import { agentSource, iterationSource } from './agents'
import { doctrineSource, drillSource, procedureSource } from './learning'
import { scarSource, victorySource } from './lessons'
import { projectSource } from './projects'
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
}

export type { SourceAdapter, SourceContext, SourceDocument, SourceLoad } from './types'
