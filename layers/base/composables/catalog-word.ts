// A value stored in English (a status, a kind, a label the server names) in the reader's
// language: the catalog's `<prefix>.<value>`, or the value as stored (or the given English)
// while the catalogs do not name it yet. Call it in a setup, before any await.
export function useCatalogWord() {
  const { t, te } = useI18n()
  return (prefix: string, value: string, english: string = value) => {
    const key = `${prefix}.${value}`
    return te(key) ? t(key) : english
  }
}
