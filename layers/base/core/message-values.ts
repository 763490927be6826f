// The named values of a catalog message that the server sends beside an English text it words
// itself ({count}, {variable}…), so a page can say it in the reader's language.
import { z } from 'zod'

export const MessageValues = z.record(z.string(), z.union([z.string(), z.number()]))
export type MessageValues = z.infer<typeof MessageValues>
