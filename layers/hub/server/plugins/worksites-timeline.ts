import { timelineSources } from '#layers/hub/core/timeline-sources'

/** Gives the worksites timeline routes the message, spawns, QA and lessons of the layers above worksites. */
export default defineNitroPlugin(() => {
  provideTimelineSources(timelineSources)
})
