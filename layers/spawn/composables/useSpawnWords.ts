// A spawn's status and outcome in the reader's language (`spawn.status.*`, `spawn.outcome.*`);
// a value the catalogs do not name yet is shown as stored.
export function useSpawnWords() {
  const word = useCatalogWord()
  return {
    spawnStatus: (status: string) => word('spawn.status', status),
    spawnOutcome: (outcome: string) => word('spawn.outcome', outcome),
  }
}
