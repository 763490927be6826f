// The facade's inputs, checked the same way at the core and at the API boundary.
import { z } from 'zod'
import { COMPLETION_PROVIDERS, EMBEDDING_PROVIDERS, type ProviderId } from './catalog'

const feature = z.string().trim().min(1, 'feature is required (the ledger label of the call)').max(100).regex(/^[\w.:-]+$/, 'feature: letters, digits, _ . : - only')
const tenant = z.string().trim().min(1).max(200).optional()
const timeoutMs = z.number().int().min(100).max(30 * 60_000).optional()
const actor = z.string().max(200).optional()

export const completionProvider = z.enum(COMPLETION_PROVIDERS as [ProviderId, ...ProviderId[]])
export const embeddingProvider = z.enum(EMBEDDING_PROVIDERS as [ProviderId, ...ProviderId[]])

export const GenerateInput = z.object({
  prompt: z.string().min(1, 'prompt is required').max(400_000),
  systemPrompt: z.string().max(200_000).optional(),
  provider: completionProvider.optional(),
  model: z.string().trim().min(1).max(200).optional(),
  maxTokens: z.number().int().min(1).max(200_000).default(4096),
  temperature: z.number().min(0).max(2).default(0.7),
  tenant,
  feature,
  timeoutMs,
  actor,
})

export const CompleteInput = z.object({
  feature,
  system: z.string().max(200_000).optional(),
  prompt: z.string().min(1, 'prompt is required').max(400_000),
  json: z.boolean().default(false),
  provider: z.union([z.literal('auto'), completionProvider]).default('auto'),
  model: z.string().trim().min(1).max(200).optional(),
  maxTokens: z.number().int().min(1).max(200_000).optional(),
  temperature: z.number().min(0).max(2).default(0),
  tenant,
  timeoutMs,
  actor,
})

export const EmbedInput = z.object({
  feature,
  texts: z.array(z.string().max(100_000)).min(1, 'texts: at least one text').max(10_000),
  inputType: z.enum(['query', 'document']).optional(),
  provider: z.union([z.literal('auto'), embeddingProvider]).default('auto'),
  model: z.string().trim().min(1).max(200).optional(),
  tenant,
  timeoutMs,
  actor,
})

export type GenerateRequest = z.input<typeof GenerateInput> & { signal?: AbortSignal }
export type CompleteRequest = z.input<typeof CompleteInput> & { signal?: AbortSignal }
export type EmbedRequest = z.input<typeof EmbedInput> & { signal?: AbortSignal }

/** Budgets and the usage page (issue 34, Deliver 7): a month 'YYYY-MM', a budget's limits. */
export const UsageMonth = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'month: YYYY-MM')
export const UsageQuery = z.object({ month: UsageMonth.optional() }).strict()

export const BudgetBody = z.object({
  kind: z.enum(['person', 'agent']),
  /** The person's email or the custom agent's codename. */
  subject: z.string().trim().min(1).max(200),
  /** Empty (null) = no limit of its own; both null removes the budget. */
  tokensMonthly: z.number().int().min(0).max(1_000_000_000_000).nullable(),
  costUsdMonthly: z.number().min(0).max(10_000_000).nullable(),
}).strict()
export type BudgetBodyInput = z.infer<typeof BudgetBody>

/** A priced model in or out of the allowance (founder only). */
export const IncludedBody = z
  .object({ provider: z.string().trim().min(1).max(100), model: z.string().trim().min(1).max(200), included: z.boolean() })
  .strict()
