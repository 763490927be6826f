// A unified diff of two Markdown bodies, line by line (what the person reads before applying
// an agent's proposal). Longest common subsequence over lines: instruction documents are at
// most 40 000 characters, so the quadratic table stays small; beyond LCS_MAX_CELLS the diff
// degrades to "everything removed, everything added" rather than burning the CPU.
const CONTEXT_LINES = 3
const LCS_MAX_CELLS = 4_000_000

type Op = { kind: ' ' | '-' | '+', line: string }

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

function lineOps(before: string[], after: string[]): Op[] {
  const n = before.length
  const m = after.length
  if (n * m > LCS_MAX_CELLS) return [...before.map(line => ({ kind: '-' as const, line })), ...after.map(line => ({ kind: '+' as const, line }))]
  // lengths[i][j] = LCS of before[i..] and after[j..], in one flat array.
  const width = m + 1
  const lengths = new Uint32Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j]
        = before[i] === after[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!)
    }
  }
  const ops: Op[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      ops.push({ kind: ' ', line: before[i]! })
      i++
      j++
    }
    else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) ops.push({ kind: '-', line: before[i++]! })
    else ops.push({ kind: '+', line: after[j++]! })
  }
  while (i < n) ops.push({ kind: '-', line: before[i++]! })
  while (j < m) ops.push({ kind: '+', line: after[j++]! })
  return ops
}

/** The unified diff (`---`/`+++` headers, `@@` hunks, 3 lines of context); '' when the bodies are equal. */
export function unifiedDiff(before: string, after: string, labels: { from: string, to: string }): string {
  const ops = lineOps(splitLines(before), splitLines(after))
  const changed = ops.map((op, index) => (op.kind !== ' ' ? index : -1)).filter(index => index >= 0)
  if (changed.length === 0) return ''
  // Group changes whose context windows touch into one hunk.
  const groups: Array<[number, number]> = []
  for (const index of changed) {
    const last = groups[groups.length - 1]
    if (last && index - last[1] <= CONTEXT_LINES * 2) last[1] = index
    else groups.push([index, index])
  }
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`]
  for (const [first, last] of groups) {
    const start = Math.max(0, first - CONTEXT_LINES)
    const end = Math.min(ops.length - 1, last + CONTEXT_LINES)
    // Line numbers (1-based) where the hunk starts in each side.
    let oldLine = 1
    let newLine = 1
    for (const op of ops.slice(0, start)) {
      if (op.kind !== '+') oldLine++
      if (op.kind !== '-') newLine++
    }
    const hunk = ops.slice(start, end + 1)
    const oldCount = hunk.filter(op => op.kind !== '+').length
    const newCount = hunk.filter(op => op.kind !== '-').length
    out.push(`@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`)
    for (const op of hunk) out.push(`${op.kind}${op.line}`)
  }
  return `${out.join('\n')}\n`
}
