// A health status (ok, warning, critical…) in the reader's language (`health.status.*`); a
// status the catalogs do not name yet is shown as stored.
export function useHealthStatusName() {
  const word = useCatalogWord()
  return (status: string) => word('health.status', status)
}
