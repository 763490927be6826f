// What a run receives of a skill (seed 003 §13.3): its body, then the relevant extracts of
// its shareable files (paragraphs sharing the request's words, best first) within a budget.
// Product rules stay in their own prompt layer, above the skills: a skill cannot touch them.
import { stems } from './text'

export const SKILL_TEXT_BUDGET = 8_000

export function skillText(
  skill: { body: string, files: Array<{ path: string, content: string }> },
  request: string,
  budget = SKILL_TEXT_BUDGET,
): string {
  const body = skill.body.slice(0, budget)
  let left = budget - body.length
  const wanted = new Set(stems(request))
  const extracts = skill.files
    .flatMap(file =>
      file.content.split(/\n\s*\n/).map((paragraph, position) => ({
        path: file.path,
        paragraph: paragraph.trim(),
        position,
        score: stems(paragraph).filter(s => wanted.has(s)).length,
      })),
    )
    .filter(extract => extract.paragraph && extract.score > 0)
    .sort((a, b) => b.score - a.score || a.position - b.position)
  const kept: string[] = []
  for (const extract of extracts) {
    const text = `From ${extract.path}:\n${extract.paragraph}`
    if (text.length > left) continue
    kept.push(text)
    left -= text.length + 2
  }
  return kept.length > 0 ? `${body}\n\n${kept.join('\n\n')}` : body
}
