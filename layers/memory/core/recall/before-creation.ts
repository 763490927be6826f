// The automatic trigger before a work item is created: a hybrid recall of the four closest
// entries for the item's title (lexical when the embedding API is unavailable), written to
// the caller's diagnostic stream. Non-blocking: it never throws and gives up after a time
// budget, returning what it has (nothing) so that the creation goes on.
import { recall, type RecallDeps } from './engine'
import type { RecallHit, RecallResponse } from './types'

export const BEFORE_CREATION_K = 4
export const BEFORE_CREATION_BUDGET_MS = 5000

export interface BeforeCreationResult {
  hits: RecallHit[]
  modeUsed: RecallResponse['modeUsed'] | null
  /** The lines written to the diagnostic stream. */
  lines: string[]
  error: string | null
}

export function formatHit(hit: RecallHit): string {
  const score = hit.scores.semantic !== null && hit.scores.rrf === null ? hit.scores.semantic.toFixed(3) : hit.scores.final.toFixed(4)
  return `  ${hit.rank}. [${hit.sourceType}] ${hit.title} (${hit.sourceType}:${hit.sourceId}, score ${score})`
}

export async function recallBeforeCreation(
  deps: RecallDeps & { emit?: (line: string) => void, budgetMs?: number },
  item: { title: string },
): Promise<BeforeCreationResult> {
  const emit = deps.emit ?? (() => {})
  const lines: string[] = []
  const say = (line: string) => {
    lines.push(line)
    try {
      emit(line)
    }
    catch { /* a broken stream never stops a creation */ }
  }
  const title = item.title?.trim() ?? ''
  if (!title) return { hits: [], modeUsed: null, lines, error: 'no title to recall from' }
  let timer: NodeJS.Timeout | undefined
  try {
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`recall took longer than ${deps.budgetMs ?? BEFORE_CREATION_BUDGET_MS} ms`)), deps.budgetMs ?? BEFORE_CREATION_BUDGET_MS)
    })
    const response = await Promise.race([recall(deps, { query: title, k: BEFORE_CREATION_K, mode: 'hybrid' }), budget])
    say(`[recall] before creating "${title}": ${response.hits.length} related entr${response.hits.length === 1 ? 'y' : 'ies'} (${response.modeUsed}${response.fallback ? ', embedding unavailable' : ''})`)
    for (const hit of response.hits) say(formatHit(hit))
    return { hits: response.hits, modeUsed: response.modeUsed, lines, error: null }
  }
  catch (error) {
    const message = (error as Error).message
    say(`[recall] before creating "${title}": recall unavailable (${message}); creating anyway`)
    return { hits: [], modeUsed: null, lines, error: message }
  }
  finally {
    clearTimeout(timer)
  }
}
