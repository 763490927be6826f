// Every layer's lent route schemas, in one map for the API document. A layer joins by exporting
// `apiSchemas` (layers/base/core/api-schema-map.ts) and being listed here.
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'
import { apiSchemas as agents } from '#layers/agents/core/schemas'
import { apiSchemas as ai } from '#layers/ai/core/api-schemas'
import { apiSchemas as atlas } from '#layers/atlas/core/schemas'
import { apiSchemas as clients } from '#layers/clients/core/schemas'
import { apiSchemas as root } from './schemas'

export const hubApiSchemas: ApiSchemaMap = { ...root, ...ai, ...clients, ...agents, ...atlas }
