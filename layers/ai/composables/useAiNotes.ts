// The AI page's notes in the reader's language (see core/seeded-notes.ts): a routing row's
// seeded note, a provider's note and a seeded price note; any other note is shown as written.
import { priceNoteKey, providerNoteKey, SEEDED_ROUTING_NOTES } from '#layers/ai/core/seeded-notes'

export function useAiNotes() {
  const { t } = useI18n()
  function routingNote(feature: string, note: string): string {
    return SEEDED_ROUTING_NOTES[feature] === note ? t(`ai.routing.notes.${feature}`) : note
  }
  function providerNote(note: string): string {
    const keyed = providerNoteKey(note)
    return keyed ? t(keyed.key, keyed.values) : note
  }
  // A person may write any note on a price: only the seeded wordings are translated.
  function priceNote(note: string): string {
    const keyed = priceNoteKey(note)
    return keyed ? t(keyed.key, keyed.values) : note
  }
  return { routingNote, providerNote, priceNote }
}
