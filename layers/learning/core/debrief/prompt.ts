// The debrief's fixed five-section prompt (seed §4.4) and the check that an answer has them.
import { fillPrompt, promptFile } from '#layers/ai/core/prompts/file'

export const DEBRIEF_SECTIONS = [
  'Estimated vs actual tokens',
  'Top 3 recurring errors',
  'Top 3 patterns to standardise',
  'One candidate doctrine',
  'One tool to create',
] as const

export const DEBRIEF_SYSTEM = fillPrompt(promptFile(new URL('./debrief.system.md', import.meta.url)), { sections: DEBRIEF_SECTIONS.map((title, i) => `## ${i + 1}. ${title}`).join('\n') })

export function debriefPrompt(renderedBundle: string): string {
  return `The audit bundle of the project:\n\n<bundle>\n${renderedBundle}\n</bundle>\n\nWrite the debrief.`
}

/** The answer from its first heading on, or null when one of the five sections is missing. */
export function debriefAnswer(text: string): string | null {
  const body = text.replace(/^```(?:markdown|md)?\s*/i, '').replace(/\s*```\s*$/, '')
  const positions = DEBRIEF_SECTIONS.map((title, i) => body.search(new RegExp(`^##\\s*${i + 1}\\.?\\s*${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi')))
  if (positions.some(p => p < 0)) return null
  if (positions.some((p, i) => i > 0 && p < positions[i - 1]!)) return null
  return body.slice(positions[0]).trim()
}
