// Mechanical repair (step 3): a dead reference whose file moved is found again by its
// basename, or by the one file that exports its symbol, and rewritten; any other dead
// reference is flagged for the deep regeneration. Returns the repaired text, never writes.
import { basename } from 'node:path'
import type { CodeTree, Reference } from './references'
import { parseReferences, resolveReference } from './references'

export interface Repair {
  text: string
  fixed: Array<{ from: string, to: string }>
  flagged: string[]
}

function unique<T>(items: T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined
}

function exporters(tree: CodeTree, symbol: string): string[] {
  return [...tree.files].filter(([, symbols]) => symbols.has(symbol)).map(([path]) => path)
}

function relocate(ref: Reference, tree: CodeTree): string | undefined {
  if (ref.kind === 'call') return undefined
  const byName = [...tree.files.keys()].filter(path => basename(path) === basename(ref.path))
  if (ref.kind === 'file') return unique(byName)
  const target = unique(byName.filter(path => tree.files.get(path)!.has(ref.symbol))) ?? unique(exporters(tree, ref.symbol))
  return target ? `${target}#${ref.symbol}` : undefined
}

export function repairChapter(text: string, tree: CodeTree): Repair {
  const fixed: Repair['fixed'] = []
  const flagged: string[] = []
  let out = text
  for (const ref of parseReferences(text)) {
    if (resolveReference(ref, tree).length > 0 || fixed.some(f => f.from === ref.raw) || flagged.includes(ref.raw)) continue
    const to = relocate(ref, tree)
    if (to) {
      fixed.push({ from: ref.raw, to })
      out = out.split(`\`${ref.raw}\``).join(`\`${to}\``)
    }
    else flagged.push(ref.raw)
  }
  return { text: out, fixed, flagged }
}
