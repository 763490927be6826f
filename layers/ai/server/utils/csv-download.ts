import { Readable } from 'node:stream'
import type { H3Event } from 'h3'

/** Sends a CSV written chunk by chunk as a file download (nothing held whole in memory). */
export function sendCsv(event: H3Event, filename: string, chunks: AsyncGenerator<string>) {
  setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8')
  setResponseHeader(event, 'content-disposition', `attachment; filename="${filename}"`)
  return sendStream(event, Readable.from(chunks))
}
