// The timeline routes read the message, spawns, QA and lessons through the port the hub layer
// provides at start-up (layers/hub/server/plugins/worksites-timeline.ts): those tables belong to
// layers above worksites.
import type { TimelineSources } from '../../core/timeline'

let provided: TimelineSources | undefined

export function provideTimelineSources(sources: TimelineSources): void {
  provided = sources
}

export function useTimelineSources(): TimelineSources {
  if (!provided) throw new Error('no timeline sources were provided: the hub layer\'s plugin (layers/hub/server/plugins/worksites-timeline.ts) did not run')
  return provided
}
