/** An ISO instant to the minute as the server renders it ("2026-12-05 13:20"), before the browser's relative time takes over. */
export function minuteOf(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ')
}
