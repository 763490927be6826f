// A step's words go out in English (the API's text, for any client and the browser tests) with
// their catalog key and values beside them (atlas.timeline.steps.…), so the message page reads
// in the reader's language. A text without a key (a reason, a note, a name) is shown as written.
import type { MessageValues } from './timeline-schema'

const KEYS = 'atlas.timeline.steps'

export function titled(title: string, key: string, values?: MessageValues) {
  return { title, titleKey: `${KEYS}.titles.${key}`, ...(values && { titleValues: values }) }
}

export function detailed(detail: string, key: string, values?: MessageValues) {
  return { detail, detailKey: `${KEYS}.details.${key}`, ...(values && { detailValues: values }) }
}

export function labelled(label: string, key: string, values?: MessageValues) {
  return { label, labelKey: `${KEYS}.links.${key}`, ...(values && { labelValues: values }) }
}
