// Every hub table's page, page size and order live in the URL, so a link shows the same rows:
// `?page=2&pageSize=50&sort=actor&dir=asc` (or `?<key>.page=2…` when a page holds several tables).
// A paged route reads the same keys (shared/paging.ts). HubTable uses this for the tables it
// pages itself; a page whose rows come paged from the server calls it, sends `request` to its
// route and hands it to HubTable:
//   const table = useTableQuery({ sorts: ACTIVITY_SORTS, filters })
//   useFetch('/api/activity', { query: table.request })
//   <HubTable :server="table" :total="data.total" … />
import type { SortingState } from '@tanstack/vue-table'
import type { LocationQuery, LocationQueryRaw, Router } from 'vue-router'
import { PAGE_SIZES } from '~~/shared/paging'

export interface TableQueryOptions {
  /** The columns the table sorts by; anything else in the URL is ignored. */
  sorts: readonly string[]
  /** Prefixes the keys when a page holds more than one table. */
  key?: string
  sizes?: readonly number[]
  /** The filters the page shows next to the table, kept in the URL too; a change goes back to page 1. */
  filters?: () => Record<string, string | undefined>
  /** False: the state stays in the component (no URL); true by default. */
  inUrl?: boolean
}

export type TableQuery = ReturnType<typeof useTableQuery>

/** The first value of a query key (a repeated key counts once). */
export function queryValue(query: LocationQuery, name: string): string | undefined {
  const value = query[name]
  const one = Array.isArray(value) ? value[0] : value
  return typeof one === 'string' ? one : undefined
}

// Several tables (and their filters) may change in one tick: their URL updates are merged
// into one navigation, or the second replace would undo the first. Pages that keep filters in
// the URL next to a HubTable write them through this too (undefined removes a key).
const pending = new WeakMap<Router, Record<string, string | undefined>>()
export function keepInQuery(router: Router, patch: Record<string, string | undefined>) {
  const queued = pending.get(router)
  if (queued) {
    Object.assign(queued, patch)
    return
  }
  pending.set(router, { ...patch })
  void nextTick(() => {
    const changes = pending.get(router) ?? {}
    pending.delete(router)
    const current = router.currentRoute.value.query
    // Nothing new (a table handing back its state as it mounts): no navigation, which would
    // close what the route closes (the command palette, a slideover).
    if (Object.entries(changes).every(([key, value]) => queryValue(current, key) === value)) return
    const query: LocationQueryRaw = Object.fromEntries(
      Object.entries({ ...current, ...changes }).filter(([, value]) => value !== undefined),
    )
    router.replace({ query }).catch((failure: unknown) => console.error('Could not keep the table\'s page in the URL', failure))
  })
}

export function useTableQuery(options: TableQueryOptions) {
  const route = useRoute()
  const router = useRouter()
  const sizes = options.sizes ?? PAGE_SIZES
  const defaultSize = sizes[0] ?? 10
  const name = (key: string) => (options.key ? `${options.key}.${key}` : key)
  const inUrl = options.inUrl ?? true
  const read = (key: string) => (inUrl ? queryValue(route.query, name(key)) : undefined)

  const askedSize = Number(read('pageSize'))
  const page = ref(Math.max(1, Math.floor(Number(read('page'))) || 1))
  const pageSize = ref(sizes.includes(askedSize) ? askedSize : defaultSize)
  const sortKey = read('sort')
  const sorting = ref<SortingState>(sortKey && options.sorts.includes(sortKey) ? [{ id: sortKey, desc: read('dir') !== 'asc' }] : [])

  /** What the table asks its route for: page and size always, so the route's defaults never matter. */
  const request = computed(() => ({
    ...options.filters?.(),
    page: String(page.value),
    pageSize: String(pageSize.value),
    sort: sorting.value[0]?.id,
    dir: sorting.value[0] ? (sorting.value[0].desc ? 'desc' : 'asc') : undefined,
  }))

  if (options.filters) {
    // A new filter starts again from the first page.
    watch(options.filters, () => {
      page.value = 1
    }, { deep: true })
  }
  // The URL leaves out what is the default (page 1, the first size, no order).
  if (inUrl) {
    watch(request, (value) => {
      const patch: Record<string, string | undefined> = { ...options.filters?.() }
      patch[name('page')] = page.value > 1 ? value.page : undefined
      patch[name('pageSize')] = pageSize.value !== defaultSize ? value.pageSize : undefined
      patch[name('sort')] = value.sort
      patch[name('dir')] = value.dir
      keepInQuery(router, patch)
    })
  }

  return { page, pageSize, sorting, sizes: [...sizes] as number[], request }
}
