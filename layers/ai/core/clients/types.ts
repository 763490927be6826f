import type { ProviderId, Via } from '../catalog'

export interface ChatRequest {
  model: string
  system?: string
  prompt: string
  maxTokens: number
  temperature: number
  /** Ask for one JSON object (JSON mode where the API has one). */
  json: boolean
  timeoutMs: number
  signal?: AbortSignal
  /** The feature label (the offline provider picks its rule with it). */
  feature: string
  /** Tools the model may call (tool calling); absent: a plain completion. */
  tools?: ToolSpec[]
  /** The conversation so far (replaces `prompt` as the user turn when present). */
  messages?: ChatMessage[]
}

/** A tool as the model sees it: name, description and a JSON-schema input. */
export interface ToolSpec {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** A tool call the model asked for. `error` is set when its arguments could not be read. */
export interface ToolCall {
  id: string
  name: string
  input: Record<string, unknown>
  /** The arguments as the provider sent them (JSON text). */
  rawArguments: string
  error?: string
}

export type ChatMessage
  = | { role: 'user', content: string }
    | { role: 'assistant', content: string, toolCalls?: ToolCall[] }
    | { role: 'tool', toolCallId: string, name: string, content: string, isError?: boolean }

export interface ChatResult {
  content: string
  /** The model as the response names it. */
  model: string
  tokensIn: number
  tokensOut: number
  /** A cost the provider reported itself (the agent CLI does), in USD. */
  costUsd?: number
  /** The tool calls of the answer (tool calling only; several = parallel calls). */
  toolCalls?: ToolCall[]
}

export interface EmbedRequest {
  model: string
  texts: string[]
  inputType?: 'query' | 'document'
  dimensions: number
  timeoutMs: number
  signal?: AbortSignal
}

export interface EmbedResult {
  vectors: number[][]
  model: string
  tokensIn: number
}

/** One provider's wire format. A client exists only when the provider is configured. */
export interface ProviderClient {
  provider: ProviderId
  via: Via
  chat?: (request: ChatRequest) => Promise<ChatResult>
  embed?: (request: EmbedRequest) => Promise<EmbedResult>
}
