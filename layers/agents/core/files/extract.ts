// The text of an uploaded file, read once at upload (after the antivirus said clean): a PDF's
// text layer (unpdf), a DOCX's paragraphs (mammoth), a CSV as a short profile (rows, columns,
// headers) above its rows, plain text, Markdown and JSON as they are. Images have no stored
// text: OCR reads them when a tool asks (read_uploaded_file), never persisted (as Atlas does).
// The text is capped: the model works from what fits, never from the binary.
import mammoth from 'mammoth'
import { extractText } from 'unpdf'
import type { FileKind } from './detect'

/** What is kept of a file's text (the tool pages through it). */
export const STORED_TEXT_CHARS = 200_000

const cap = (text: string) => (text.length <= STORED_TEXT_CHARS ? text : `${text.slice(0, STORED_TEXT_CHARS)}\n[text cut at ${STORED_TEXT_CHARS} characters]`)

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  const body = text.replace(/^\uFEFF/, '')
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"'
        i++
      }
      else if (c === '"') quoted = false
      else field += c
      continue
    }
    if (c === '"' && field === '') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    }
    else field += c
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows.filter(cells => !(cells.length === 1 && cells[0] === ''))
}

/** A CSV's profile (size and headers) followed by its rows, one per line, cells joined by " | ". */
export function csvText(text: string): string {
  const rows = parseCsv(text)
  const headers = rows[0] ?? []
  const width = Math.max(0, ...rows.map(cells => cells.length))
  const profile = `CSV: ${Math.max(0, rows.length - 1)} data row(s), ${width} column(s); headers: ${headers.join(', ') || '(none)'}`
  return [profile, ...rows.map(cells => cells.join(' | '))].join('\n')
}

/** The stored text of a file of this kind; null for an image (OCR on demand). */
export async function extractFileText(kind: FileKind, bytes: Uint8Array): Promise<string | null> {
  switch (kind) {
    case 'pdf': {
      // unpdf takes ownership of the buffer it is given: hand it a copy.
      const { text } = await extractText(new Uint8Array(bytes), { mergePages: true })
      return cap(text.trim())
    }
    case 'docx': {
      const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) })
      return cap(value.trim())
    }
    case 'csv':
      return cap(csvText(new TextDecoder().decode(bytes)))
    case 'image':
      return null
    default:
      return cap(new TextDecoder().decode(bytes))
  }
}
