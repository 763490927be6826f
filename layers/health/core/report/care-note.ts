// Nightingale's care note: the health guardian reads the five vital signs and writes at most
// three sentences in English, through the AI facade (routing key health_care_note). A model
// that is down, or the offline stand-in answering, leaves the note empty: the report goes on.
import type { AiFacade } from '#layers/ai/core/facade'
import type { HealthDimension, HealthStatus } from '#db/schema/health'
import { promptFile } from '#layers/ai/core/prompts/file'

export const CARE_NOTE_FEATURE = 'health_care_note'
export const CARE_NOTE_MAX_SENTENCES = 3
export const CARE_NOTE_MAX_CHARS = 600

export const CARE_NOTE_SYSTEM = promptFile(new URL('./care-note.system.md', import.meta.url))

export function careNotePrompt(status: HealthStatus, dimensions: HealthDimension[]): string {
  const lines = dimensions.map(d => `- ${d.key}: ${d.status}${d.score === null ? '' : ` (score ${d.score}/100)`} — ${d.summary}`)
  return [`Overall status: ${status}.`, 'Vital signs:', ...lines].join('\n')
}

/** Plain text, whitespace collapsed, cut to three sentences and a bounded length. */
export function trimCareNote(text: string): string {
  const flat = text.replace(/[*#`_>]/g, '').replace(/\s+/g, ' ').trim()
  if (!flat) return ''
  const sentences = flat.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [flat]
  const kept = sentences.slice(0, CARE_NOTE_MAX_SENTENCES).map(s => s.trim()).join(' ')
  return kept.length <= CARE_NOTE_MAX_CHARS ? kept : `${kept.slice(0, CARE_NOTE_MAX_CHARS - 1).trimEnd()}…`
}

export async function writeCareNote(
  ai: AiFacade,
  status: HealthStatus,
  dimensions: HealthDimension[],
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const result = await ai.complete({
      feature: CARE_NOTE_FEATURE,
      system: CARE_NOTE_SYSTEM,
      prompt: careNotePrompt(status, dimensions),
      maxTokens: 300,
      signal,
    })
    if (result.offline) {
      log('care note: no model answered (offline stand-in); the note stays empty')
      return ''
    }
    return trimCareNote(result.content)
  }
  catch (error) {
    log(`care note: the model is unavailable (${error instanceof Error ? error.message : String(error)}); the note stays empty`)
    return ''
  }
}
