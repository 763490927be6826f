import type { MessageValues } from '#layers/base/core/message-values'

/**
 * A text the server words in English, in the reader's language: the catalog's message when the
 * server sent its key (and values) beside it, the English as sent otherwise (free text: a reason,
 * a name). `words` names the values that are stored English words (a status, an intent) by the
 * catalog that says them. Call it in a setup, before any await.
 */
export function useServerWords(words: Record<string, string> = {}) {
  const { t, te } = useI18n()
  const word = useCatalogWord()
  return (text: string, key?: string | null, values?: MessageValues | null): string => {
    if (!key || !te(key)) return text
    const named = Object.entries(values ?? {}).map(([name, value]) => [name, words[name] && typeof value === 'string' ? word(words[name], value) : value])
    return t(key, Object.fromEntries(named))
  }
}
