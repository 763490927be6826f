// The recall CLI's human output: one line per hit with its scores per mode, and how to read them.
import type { RecallResponse } from './types'

const fixed = (value: number | null, digits: number) => (value === null ? '—' : value.toFixed(digits))

export function formatRecall(response: RecallResponse): string[] {
  const lines = [`${response.hits.length} result(s) for "${response.query}" — mode ${response.modeUsed}${response.fallback ? ` (fallback from ${response.fallback.from}: ${response.fallback.reason})` : ''}, scope ${response.scope.length === 10 ? 'all' : response.scope.join(',')}${response.agent ? `, agent ${response.agent}` : ''}`]
  if (response.expansions.length) lines.push(`Misspelt words expanded: ${response.expansions.map(item => `${item.word} → ${item.stems.join(', ')}`).join('; ')}`)
  if (response.lowConfidence) lines.push(`Nothing relevant: ${response.lowConfidenceReason ?? 'no result reaches the relevance floor'}${response.hits.length ? '; the results below are flagged low confidence' : ''}.`)
  for (const hit of response.hits) {
    const s = hit.scores
    const parts = [`final ${fixed(s.final, 4)}`, `sem ${fixed(s.semantic, 3)}${s.semanticRank ? ` (#${s.semanticRank})` : ''}`, `lex ${fixed(s.lexical, 3)}${s.lexicalRank ? ` (#${s.lexicalRank})` : ''}`]
    if (s.fuzzy) parts.push('fuzzy')
    if (hit.lowConfidence) parts.push('LOW CONFIDENCE')
    if (s.rrf !== null) parts.push(`rrf ${fixed(s.rrf, 4)}`)
    if (s.rerank) parts.push(`scar ×${s.rerank.factor.toFixed(2)} (importance ${s.rerank.importance}, ${Math.round(s.rerank.ageDays)} d)`)
    lines.push(`${String(hit.rank).padStart(2)}. [${hit.sourceType}] ${hit.title}  ${hit.sourceType}:${hit.sourceId}`)
    lines.push(`    ${parts.join(' · ')}${hit.link ? `  ${hit.link}` : ''}`)
  }
  if (response.modeUsed === 'sem') lines.push('Semantic scores: > 0.75 highly relevant, 0.65–0.75 relevant, < 0.65 review by hand.')
  if (response.modeUsed === 'hybrid') lines.push('Hybrid (RRF) scores are small by construction: read the rank, not the value.')
  return lines
}
