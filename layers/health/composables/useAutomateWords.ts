// An automate's description in the reader's language (catalog key `health.automates.<name>`):
// the description comes from the server in English, and an automate the catalogs do not know
// yet (a new one, before its words are added) is shown in that English.
export function useAutomateWords() {
  const word = useCatalogWord()
  return { automateDescription: (name: string, description: string) => word('health.automates', name, description) }
}
