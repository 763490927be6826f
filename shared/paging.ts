// One way for every hub table to ask for a page: 1-based `page`, `pageSize` (at most 200; the
// pages offer PAGE_SIZES), and `sort` from the table's whitelist with `dir`. The routes validate it with this schema (a
// column outside the whitelist is a 400), and the pages keep the same keys in their URL.
import { z } from 'zod'

export const PAGE_SIZES = [10, 25, 50, 100] as const
export const SORT_DIRS = ['asc', 'desc'] as const
export type SortDir = typeof SORT_DIRS[number]

export interface PageRequest<S extends string> {
  page: number
  pageSize: number
  sort?: S
  dir: SortDir
}

/** The zod shape of a paged route's query for a table that sorts by `sorts`. */
export function pagingQuery<const S extends readonly [string, ...string[]]>(sorts: S, defaultSize = 25) {
  return {
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(200).default(defaultSize),
    sort: z.enum(sorts).optional(),
    dir: z.enum(SORT_DIRS).default('desc'),
  }
}

/** A page of rows and how many match over all pages. */
export interface Paged<T> {
  items: T[]
  total: number
  page: number
  pageSize: number
}
