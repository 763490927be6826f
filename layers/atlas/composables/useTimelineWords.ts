// A timeline step's words in the reader's language: the server sends its English with the
// catalog key and values beside (atlas.timeline.steps.…); a text without a key is shown as
// written. Values that are stored English words (an intent, a status) are named by their own
// catalogs first. Call it in a setup, before any await.
import type { TimelineStepView } from '#layers/atlas/core/timeline-schema'

/** The values that are stored English words, with the catalog that names them. */
const WORDS: Record<string, string> = {
  intent: 'atlas.intents', kind: 'atlas.intents', previousStatus: 'atlas.statuses', spawnStatus: 'spawn.status', spawnOutcome: 'spawn.outcome',
}

export function useTimelineWords() {
  const said = useServerWords(WORDS)
  return {
    said,
    titleOf: (step: TimelineStepView) => said(step.title, step.titleKey, step.titleValues),
    detailOf: (step: TimelineStepView) => (step.detail === null ? null : said(step.detail, step.detailKey, step.detailValues)),
  }
}
