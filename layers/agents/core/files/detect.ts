// What a file is, from its bytes (file-type's magic numbers), checked against what its name
// says. A file is accepted only when both agree on a kind the agents can read: a PDF, a DOCX,
// an image (read by OCR), or text (CSV, plain text, Markdown, JSON — no magic number: valid
// UTF-8 with no NUL byte and nothing file-type recognises). Anything else, or a disagreement
// (a PNG named .pdf, a PDF named .csv), is refused with a machine-readable code.
import { extname } from 'node:path'
import { fileTypeFromBuffer } from 'file-type'

export type FileKind = 'pdf' | 'docx' | 'image' | 'csv' | 'text' | 'markdown' | 'json'

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

/** The extensions accepted, the kind each announces and the type a text kind is stored with. */
const BY_EXTENSION: Record<string, { kind: FileKind, type?: string }> = {
  '.pdf': { kind: 'pdf' },
  '.docx': { kind: 'docx' },
  '.png': { kind: 'image' },
  '.jpg': { kind: 'image' },
  '.jpeg': { kind: 'image' },
  '.gif': { kind: 'image' },
  '.webp': { kind: 'image' },
  '.tif': { kind: 'image' },
  '.tiff': { kind: 'image' },
  '.csv': { kind: 'csv', type: 'text/csv' },
  '.txt': { kind: 'text', type: 'text/plain' },
  '.md': { kind: 'markdown', type: 'text/markdown' },
  '.json': { kind: 'json', type: 'application/json' },
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/tiff'])

export type Detection
  = | { ok: true, kind: FileKind, contentType: string }
    | { ok: false, code: 'unsupported_type' | 'type_mismatch', message: string, detected: string | null, declared: string | null }

function kindOfType(mime: string): FileKind | null {
  if (mime === 'application/pdf') return 'pdf'
  if (mime === DOCX_TYPE) return 'docx'
  if (IMAGE_TYPES.has(mime)) return 'image'
  return null
}

function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  }
  catch {
    return false
  }
}

export async function detectFile(name: string, bytes: Uint8Array): Promise<Detection> {
  const extension = extname(name).toLowerCase()
  const declared = BY_EXTENSION[extension] ?? null
  const found = await fileTypeFromBuffer(bytes)
  const detectedKind = found ? kindOfType(found.mime) : (isText(bytes) ? 'text' : null)
  const detected = found?.mime ?? (detectedKind === 'text' ? 'text/plain' : null)
  if (!detectedKind) {
    return { ok: false, code: 'unsupported_type', message: `${detected ?? 'this content'} is not a type the agents read (PDF, DOCX, CSV, text, Markdown, JSON, PNG, JPEG, GIF, WebP, TIFF)`, detected, declared: extension || null }
  }
  if (!declared) {
    return { ok: false, code: 'unsupported_type', message: `the name "${name}" has no accepted extension (.pdf, .docx, .csv, .txt, .md, .json, .png, .jpg, .gif, .webp, .tiff)`, detected, declared: extension || null }
  }
  const textual = declared.kind === 'csv' || declared.kind === 'text' || declared.kind === 'markdown' || declared.kind === 'json'
  const agrees = textual ? detectedKind === 'text' : detectedKind === declared.kind
  if (!agrees) {
    return { ok: false, code: 'type_mismatch', message: `the name says ${extension} but the bytes are ${detected}`, detected, declared: extension }
  }
  if (textual) return { ok: true, kind: declared.kind, contentType: declared.type! }
  return { ok: true, kind: declared.kind, contentType: found!.mime }
}
