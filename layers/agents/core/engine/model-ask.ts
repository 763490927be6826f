import type { ToolChatRequest } from '#layers/ai/core/tool-chat'
import type { RunContext } from './context'

/** The first turn's model: the engine's resolution (restricted to the surface's list), else the request as is. */
export function modelAsk(context: RunContext): Pick<ToolChatRequest, 'provider' | 'model' | 'candidates'> {
  const resolution = context.modelResolution
  if (resolution?.first)
    return {
      provider: resolution.first.provider,
      model: resolution.first.model,
      ...(resolution.candidates ? { candidates: resolution.candidates } : {}),
    }
  return { provider: context.modelRequest.provider, model: context.modelRequest.model }
}
