// The command palette's search: what the hub answers for a few typed words (zod, so the
// route's answer and the palette's items agree). Pages are searched in the browser.
import { z } from 'zod'

export const SearchQuery = z.object({
  q: z.string().trim().min(1, 'q: type at least one character').max(200),
  limit: z.coerce.number().int().min(1).max(20).default(6),
})

export const SearchHit = z.object({
  /** What the palette shows, and where a click goes. */
  label: z.string(),
  description: z.string(),
  to: z.string().startsWith('/hub/'),
})

export const SearchResults = z.object({
  agents: z.array(SearchHit),
  messages: z.array(SearchHit),
  notes: z.array(SearchHit),
})

export type SearchHit = z.infer<typeof SearchHit>
export type SearchResults = z.infer<typeof SearchResults>
