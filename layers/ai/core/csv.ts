// CSV (RFC 4180) with spreadsheet-formula neutralisation: a cell starting with = + - @ is
// prefixed with a quote so a spreadsheet never runs it.

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  let text = value instanceof Date ? value.toISOString() : Array.isArray(value) ? value.join(' > ') : String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map(row => row.map(cell).join(',')).join('\r\n') + '\r\n'
}

/** A CSV written page by page (a streamed download): the header, then each page's rows until a page is empty. */
export async function* csvChunks(header: string[], nextPage: () => Promise<unknown[][]>): AsyncGenerator<string> {
  yield toCsv(header, [])
  for (;;) {
    const rows = await nextPage()
    if (rows.length === 0) return
    yield rows.map(row => row.map(cell).join(',')).join('\r\n') + '\r\n'
  }
}
