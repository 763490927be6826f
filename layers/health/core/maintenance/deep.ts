// Deep regeneration (step 4): the chapters that still drift after the mechanical repair are
// rewritten by the model (AI facade, routing key docs_regeneration) against the code tree's
// current files and symbols. Bounded: at most `max` chapters, and no chapter is started once
// `budgetMs` has elapsed (the running one is aborted at the budget's end).
import type { AiFacade } from '#layers/ai/core/facade'
import type { CodeTree } from './references'
import { promptFile } from '#layers/ai/core/prompts/file'

export const DEEP_FEATURE = 'docs_regeneration'
const MAX_LISTED_FILES = 300

export const DEEP_SYSTEM = promptFile(new URL('./deep.system.md', import.meta.url))

export interface DeepTarget { chapter: string, text: string, dead: string[], stale: string[] }
export interface DeepResult { chapter: string, text: string }

export function deepPrompt(target: DeepTarget, tree: CodeTree): string {
  const files = [...tree.files].slice(0, MAX_LISTED_FILES).map(([path, symbols]) => `- ${path}${symbols.size ? `: ${[...symbols].join(', ')}` : ''}`)
  return [
    `Chapter: ${target.chapter}`,
    target.dead.length ? `Dead references: ${target.dead.join(', ')}` : '',
    target.stale.length ? `Changed since the chapter was written: ${target.stale.join(', ')}` : '',
    'Code files and their exported symbols:',
    ...files,
    '',
    'The chapter:',
    target.text,
  ].filter(line => line !== '').join('\n')
}

/** The model's answer without a wrapping ```markdown fence. */
export function unwrapChapter(content: string): string {
  const fenced = /^\s*```(?:markdown|md)?\n([\s\S]*?)\n```\s*$/.exec(content)
  return `${(fenced ? fenced[1]! : content).trim()}\n`
}

export interface DeepOptions {
  ai: AiFacade
  max: number
  budgetMs: number
  log: (line: string) => void
  signal?: AbortSignal
  clock?: () => number
}

export async function regenerate(
  targets: DeepTarget[],
  tree: CodeTree,
  options: DeepOptions,
): Promise<{ results: DeepResult[], failed: number, skipped: number }> {
  const clock = options.clock ?? Date.now
  const started = clock()
  const results: DeepResult[] = []
  let failed = 0
  let index = 0
  for (; index < targets.length && index < options.max; index++) {
    const remaining = options.budgetMs - (clock() - started)
    if (remaining <= 0) {
      options.log(`deep: budget of ${Math.round(options.budgetMs / 1000)} s spent, no new chapter started`)
      break
    }
    const target = targets[index]!
    const signals = [AbortSignal.timeout(remaining), ...(options.signal ? [options.signal] : [])]
    try {
      const answer = await options.ai.complete({
        feature: DEEP_FEATURE,
        system: DEEP_SYSTEM,
        prompt: deepPrompt(target, tree),
        maxTokens: 4000,
        signal: AbortSignal.any(signals),
      })
      if (answer.offline) {
        options.log(`deep: ${target.chapter}: no model answered (offline stand-in), left as it is`)
        failed++
        continue
      }
      results.push({ chapter: target.chapter, text: unwrapChapter(answer.content) })
      options.log(`deep: ${target.chapter} regenerated`)
    }
    catch (error) {
      failed++
      options.log(`deep: ${target.chapter}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return { results, failed, skipped: targets.length - index }
}
