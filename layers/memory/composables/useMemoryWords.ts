// The memory's source types and vault spaces in the reader's language (`memory.sources.*`,
// `memory.spaces.*`): the server names them in English (core/sources.ts, core/vault/layout.ts),
// and a type or space the catalogs do not name yet is shown as the server named it.
export function useMemoryWords() {
  const word = useCatalogWord()
  return {
    sourceLabel: (type: string, english: string) => word('memory.sources', type, english),
    spaceLabel: (space: string, english: string) => word('memory.spaces', space, english),
  }
}
