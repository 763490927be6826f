// The drift detector (steps 1 and 7) and the blind-spot detector (step 2).
// A chapter drifts when it cites a dead reference (a file or symbol that is not in the code
// tree) or a file changed after the chapter was last written (stale). Its drift score is the
// share of its references that are dead (weight 1) or stale (weight 1/2), 0–100.
import type { CodeTree, Reference } from './references'
import { parseReferences, resolveReference } from './references'

export interface Chapter { text: string, mtimeMs: number }

export interface ChapterDrift {
  chapter: string
  references: number
  dead: string[]
  stale: string[]
  score: number
}

export interface Inspection {
  chaptersTotal: number
  drifted: ChapterDrift[]
  deadReferences: number
  /** 0–100, share of chapters without drift. */
  score: number
}

export function inspectChapter(chapter: string, { text, mtimeMs }: Chapter, tree: CodeTree): ChapterDrift {
  const refs = parseReferences(text)
  const dead: string[] = []
  const stale = new Set<string>()
  for (const ref of refs) {
    const targets = resolveReference(ref, tree)
    if (targets.length === 0) dead.push(ref.raw)
    else if (targets.every(path => (tree.mtimes.get(path) ?? 0) > mtimeMs)) stale.add(ref.raw)
  }
  const weight = dead.length + stale.size / 2
  const score = refs.length === 0 ? 0 : Math.round(100 * weight / refs.length)
  return { chapter, references: refs.length, dead: [...new Set(dead)], stale: [...stale], score }
}

export function inspect(chapters: Map<string, Chapter>, tree: CodeTree): Inspection {
  const all = [...chapters].map(([name, chapter]) => inspectChapter(name, chapter, tree))
  const drifted = all.filter(c => c.dead.length > 0 || c.stale.length > 0)
  const total = chapters.size
  return {
    chaptersTotal: total,
    drifted,
    deadReferences: drifted.reduce((n, c) => n + c.dead.length, 0),
    score: total === 0 ? 100 : Math.round(1000 * (total - drifted.length) / total) / 10,
  }
}

export interface Coverage { unitsTotal: number, uncovered: string[] }

/** Code files that no chapter references, neither the file nor one of its symbols. */
export function measureCoverage(chapters: Map<string, Chapter>, tree: CodeTree): Coverage {
  const covered = new Set<string>()
  for (const { text } of chapters.values()) {
    for (const ref of parseReferences(text) as Reference[]) for (const path of resolveReference(ref, tree)) covered.add(path)
  }
  const uncovered = [...tree.files.keys()].filter(path => !covered.has(path)).sort()
  return { unitsTotal: tree.files.size, uncovered }
}
