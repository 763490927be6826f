// Huge pages for the memory bench's own PostgreSQL cluster: its shared buffers on 2 MB pages
// instead of 4 kB ones, as the README advises for production ("Huge pages"). With 2 GB of
// buffers on 4 kB pages nearly every buffer a recall reads misses the TLB: at 100,000 chunks,
// 8 recalls at once read p95 85–110 ms on 4 kB pages and 57–61 ms on huge pages (probe, the
// same cluster restarted). The kernel's pool (vm.nr_hugepages) is grown for the run when the
// bench may (root), and given back after; otherwise the cluster runs on 4 kB pages and the
// figures' context says so.
import { readFileSync, writeFileSync } from 'node:fs'

const NR_HUGEPAGES = '/proc/sys/vm/nr_hugepages'

export interface HugePages {
  enabled: boolean
  /** Why not, when not. */
  reason: string | null
  /** Gives the pages the run added back to the kernel (idempotent). */
  release: () => void
}

/** `2GB`, `512MB`, `131072kB` (PostgreSQL's memory units) in bytes; a bare number is 8 kB blocks, as the server reads it. */
export function settingBytes(setting: string): number {
  const match = /^(\d+)\s*(kB|MB|GB|TB)?$/.exec(setting.trim())
  if (!match) throw new Error(`not a PostgreSQL memory setting: ${setting}`)
  const unit = { kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 }[match[2] as 'kB' | 'MB' | 'GB' | 'TB'] ?? 8192
  return Number(match[1]) * unit
}

/** The pool's size and its pages nobody holds: free and not reserved by a mapping yet to touch them (another server's buffers). */
function meminfo(): { total: number, free: number, pageBytes: number } {
  const text = readFileSync('/proc/meminfo', 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { total: field('HugePages_Total'), free: field('HugePages_Free') - field('HugePages_Rsvd'), pageBytes: field('Hugepagesize') * 1024 }
}

/**
 * Enough free huge pages for a server with `sharedBuffers` bytes of buffers (PostgreSQL maps
 * ~2 % more, and some tens of MB of other shared state): the free ones, or the pool grown by
 * the difference.
 */
export function reserveHugePages(sharedBuffers: number, log: (line: string) => void): HugePages {
  const none = (reason: string): HugePages => ({ enabled: false, reason, release: () => {} })
  let before: ReturnType<typeof meminfo>
  try {
    before = meminfo()
  }
  catch (error) {
    return none(`no /proc/meminfo (${(error as Error).message})`)
  }
  if (!Number.isFinite(before.total) || !(before.pageBytes > 0)) return none('the kernel reports no huge pages')
  const needed = Math.ceil((sharedBuffers * 1.05 + 64 * 1024 ** 2) / before.pageBytes)
  if (before.free >= needed) return { enabled: true, reason: null, release: () => {} }
  const target = before.total + needed - before.free
  let released = false
  const release = () => {
    if (released) return
    released = true
    try {
      writeFileSync(NR_HUGEPAGES, String(before.total))
    }
    catch (error) {
      log(`giving back the huge pages failed (vm.nr_hugepages stays at ${target}): ${(error as Error).message}`)
    }
  }
  try {
    writeFileSync(NR_HUGEPAGES, String(target))
  }
  catch (error) {
    return none(`vm.nr_hugepages could not be raised to ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): run as root, or reserve them beforehand`)
  }
  const after = meminfo()
  if (after.free < needed) {
    release()
    return none(`the kernel found ${after.free} free huge pages of the ${needed} needed (fragmented memory)`)
  }
  log(`vm.nr_hugepages ${before.total} → ${target} for the run (${needed} pages of ${before.pageBytes / 1024 ** 2} MB), given back after`)
  return { enabled: true, reason: null, release }
}
