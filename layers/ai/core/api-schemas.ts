// Inputs of the hub's AI routes (zod at the route boundary).
import { z } from 'zod'
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'
import { PROVIDERS } from './catalog'
import { completionProvider, embeddingProvider, GenerateInput } from './schemas'

export const GenerateBody = GenerateInput.omit({ actor: true, feature: true }).extend({ feature: GenerateInput.shape.feature.default('hub_generate') })

export const FeatureParams = z.object({ feature: z.string().min(1).max(100).regex(/^[\w.:-]+$/, 'feature: letters, digits, _ . : - only') })

const model = z.string().trim().min(1).max(200).nullable().optional()

export const RoutingBody = z.object({
  completeProvider: completionProvider.nullable().optional(),
  completeModel: model,
  embedProvider: embeddingProvider.nullable().optional(),
  embedModel: model,
  params: z.object({
    timeoutMs: z.number().int().min(1_000).max(30 * 60_000).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    dimensions: z.number().int().min(64).max(4096).optional(),
  }).strict().optional(),
  note: z.string().max(500).optional(),
}).strict()

export const PriceBody = z.object({
  provider: z.enum(PROVIDERS),
  model: z.string().trim().min(1).max(200),
  inputUsdPerMtok: z.number().min(0).max(10_000),
  outputUsdPerMtok: z.number().min(0).max(10_000),
  note: z.string().max(500).optional(),
}).strict()

export const SpendQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) })

/** These schemas, by route, for the API document (GET /api/openapi.json). */
export const apiSchemas: ApiSchemaMap = {
  'POST /api/ai/generate': { body: GenerateBody },
  'PUT /api/ai/routing/{feature}': { params: FeatureParams, body: RoutingBody },
  'DELETE /api/ai/routing/{feature}': { params: FeatureParams },
  'PUT /api/ai/prices': { body: PriceBody },
  'GET /api/ai/spend': { query: SpendQuery },
  'GET /api/ai/spend/export': { query: SpendQuery },
}
