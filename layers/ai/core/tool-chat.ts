// chatWithTools: one turn of a tool-using conversation (the agent engine's model call).
// The first turn of a run routes like complete() (the routing table's row of the feature,
// failover in the sovereign order) — failover happens before the first token only. Every
// later turn of the run is `pinned` to the provider and model that answered the first one:
// no failover, no offline stand-in, so a run never changes model silently (seed §12.2); a
// failing pinned provider fails the turn and the engine says so.
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { COMPLETION_DEFAULT_MODELS, GENERATION_TIMEOUT_MS, type ProviderId } from './catalog'
import { chatWithFailover, type ChatOutcome } from './chat'
import type { FacadeContext } from './context'
import { openAiCompatModels } from './env'
import { failoverOrder, validated } from './generate'
import { resolveRoute } from './routing-store'
import { completionProvider } from './schemas'
import type { ChatMessage, ToolSpec } from './clients/types'

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names: letters, digits, _ and - (64 at most)')

export const ToolChatInput = z.object({
  feature: z.string().trim().min(1).max(100).regex(/^[\w.:-]+$/),
  system: z.string().max(200_000).optional(),
  messages: z.array(z.custom<ChatMessage>(value => !!value && typeof value === 'object' && 'role' in value)).min(1, 'messages: at least one'),
  tools: z.array(z.object({ name: toolName, description: z.string().max(4000), inputSchema: z.record(z.string(), z.unknown()) })).max(128),
  provider: z.union([z.literal('auto'), completionProvider]).default('auto'),
  model: z.string().trim().min(1).max(200).optional(),
  pinned: z.object({ provider: completionProvider, model: z.string().min(1).max(200) }).optional(),
  /** The only models the call may use, in the order tried (a surface's allowed list): failover stays inside it, no offline stand-in. */
  candidates: z.array(z.object({ provider: completionProvider, model: z.string().min(1).max(200) })).min(1).max(30).optional(),
  maxTokens: z.number().int().min(1).max(200_000).default(4096),
  temperature: z.number().min(0).max(2).default(0),
  timeoutMs: z.number().int().min(100).max(30 * 60_000).optional(),
  actor: z.string().max(200).optional(),
  /** The agent (codename) whose run makes the call: the ledger row carries it (budgets per agent). */
  agent: z.string().trim().min(1).max(64).optional(),
  tenant: z.string().trim().min(1).max(200).optional(),
})

export type ToolChatRequest = z.input<typeof ToolChatInput> & { tools: ToolSpec[], signal?: AbortSignal }
export type ToolChatResult = ChatOutcome

export async function chatWithTools(ctx: FacadeContext, request: ToolChatRequest): Promise<ToolChatResult> {
  const input = validated(ToolChatInput, request)
  const startedAt = ctx.now()
  const meta = { callId: randomUUID(), kind: 'completion' as const, feature: input.feature, tenant: input.tenant ?? null, actor: input.actor ?? null, agent: input.agent ?? null, startedAt }
  const params = {
    prompt: '',
    messages: input.messages,
    tools: input.tools,
    system: input.system,
    maxTokens: input.maxTokens,
    temperature: input.temperature,
    json: false,
    timeoutMs: input.timeoutMs ?? GENERATION_TIMEOUT_MS,
    signal: request.signal,
    feature: input.feature,
  }
  if (input.pinned) {
    return await chatWithFailover(
      ctx,
      meta,
      { order: [input.pinned.provider], firstModel: input.pinned.model, defaults: {}, offlineFallback: false },
      params,
    )
  }
  if (input.candidates && !ctx.forcedOffline) {
    return await chatWithFailover(ctx, meta, { order: [], candidates: input.candidates, defaults: {}, offlineFallback: false }, params)
  }
  const route = await resolveRoute(await ctx.db(), 'complete', input.feature, error => ctx.log(`[ai] routing table unreadable (${(error as Error).message}); canonical defaults apply`), ctx.routing)
  const first: { provider: ProviderId, model?: string } = input.provider !== 'auto'
    ? { provider: input.provider, model: input.model }
    : { provider: route.provider, model: input.model ?? route.model ?? undefined }
  const order = ctx.forcedOffline ? ['offline' as const] : failoverOrder(first.provider)
  const defaults = { ...COMPLETION_DEFAULT_MODELS, 'openai-compat': openAiCompatModels(ctx.env).chat }
  return await chatWithFailover(ctx, meta, { order, firstModel: ctx.forcedOffline ? undefined : first.model, defaults }, params)
}
