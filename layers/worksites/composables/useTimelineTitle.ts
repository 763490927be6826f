// A timeline entry's title in the reader's language: the server sends each title in English with
// its catalog message and values (core/timeline.ts); the values that are stored words (a status,
// an outcome) are said through their own catalog first, and shown as stored when it has no word.
// A spawn's status and outcome are the spawn layer's words, looked up by key only so worksites
// does not depend on that layer. An entry without a key (a message's subject) shows as written.
import type { TimelineItem } from '#layers/worksites/core/timeline'

/** For each title message, its values that are stored words, with the catalog that says them. */
const WORDS: Record<string, Record<string, string>> = {
  'worksites.timeline.titles.created': { status: 'worksites.timeline.statuses' },
  'worksites.timeline.titles.moved': { from: 'worksites.timeline.statuses', to: 'worksites.timeline.statuses' },
  'worksites.timeline.titles.iteration': { outcome: 'worksites.iterations.outcomes' },
  'worksites.timeline.titles.spawn': { status: 'spawn.status' },
  'worksites.timeline.titles.spawnWithOutcome': { status: 'spawn.status', outcome: 'spawn.outcome' },
}

export function useTimelineTitle() {
  const { t, te } = useI18n()
  return (entry: Pick<TimelineItem, 'title' | 'titleKey' | 'titleValues'>): string => {
    if (!entry.titleKey || !te(entry.titleKey)) return entry.title
    const words = WORDS[entry.titleKey] ?? {}
    const values = Object.fromEntries(Object.entries(entry.titleValues ?? {}).map(([name, value]) => {
      const key = words[name] && `${words[name]}.${value}`
      return [name, key && te(key) ? t(key) : value]
    }))
    return t(entry.titleKey, values)
  }
}
