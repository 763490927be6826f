// A value the engine stores and the pages show as is (a run's status, a trigger's kind or fire,
// an approval's decision) in the reader's language (`agents.values.*`, English the stored
// value); a value the catalogs do not name yet is shown as stored.
export function useAgentsValueName() {
  const word = useCatalogWord()
  return (value: string) => word('agents.values', value)
}

/** A run step's status (`agents.stepStatus.*`); an unknown one as stored, its underscore a space. */
export function useStepStatusName() {
  const word = useCatalogWord()
  return (status: string) => word('agents.stepStatus', status, status.replace('_', ' '))
}
