// The system prompt, assembled in the seed's order (§10.5): product rules → instructions →
// memory → skills → working context. Each layer is recorded on the run (which source, how
// long, the text), so a run page can show exactly what the model was told and from where.
import type { RunContext } from './context'
import { promptFile } from '#layers/ai/core/prompts/file'

export const PROMPT_LAYER_ORDER = ['product_rules', 'instructions', 'memory', 'skills', 'working_context'] as const
export type PromptLayerName = typeof PROMPT_LAYER_ORDER[number]

export interface PromptLayer { layer: PromptLayerName, sources: string[], chars: number, text: string }

export const PRODUCT_RULES = promptFile(new URL('./product-rules.md', import.meta.url))

export function promptLayers(context: RunContext): PromptLayer[] {
  const layer = (name: PromptLayerName, sources: string[], text: string): PromptLayer => ({
    layer: name,
    sources,
    chars: text.length,
    text,
  })
  const working = context.sources.map(source => `- ${source.kind}: ${source.title ?? source.ref} (${source.ref})`).join('\n')
  return [
    layer('product_rules', ['engine'], PRODUCT_RULES),
    layer('instructions', context.instructions.map(i => i.source), context.instructions.map(i => i.text).join('\n\n')),
    layer('memory', context.memory ? ['memory'] : [], context.memory),
    layer('skills', context.forcedSkills.map(s => s.name), context.forcedSkills.map(s => `## Skill: ${s.name}\n${s.text}`).join('\n\n')),
    layer('working_context', context.sources.map(s => `${s.kind}:${s.ref}`), working ? `Working context:\n${working}` : ''),
  ]
}

export function systemPrompt(layers: PromptLayer[]): string {
  return layers.filter(layer => layer.text.trim() !== '').map(layer => layer.text).join('\n\n---\n\n')
}
