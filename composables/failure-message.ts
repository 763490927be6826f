/** What a failed `$fetch` to our API says: its statusMessage (the route's clear error), else the fallback. */
export function failureMessage(failure: unknown, fallback: string): string {
  return (failure as { data?: { statusMessage?: string } }).data?.statusMessage ?? fallback
}
