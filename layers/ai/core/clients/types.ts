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
}

export interface ChatResult {
  content: string
  /** The model as the response names it. */
  model: string
  tokensIn: number
  tokensOut: number
  /** A cost the provider reported itself (the agent CLI does), in USD. */
  costUsd?: number
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
