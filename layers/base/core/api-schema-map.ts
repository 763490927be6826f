// How a layer lends its routes' zod schemas to the API document (GET /api/openapi.json): its
// core/schemas.ts exports an `apiSchemas` map from "METHOD /api/path" (OpenAPI's `{param}` form)
// to the very schemas the routes validate with. Framework-free.
import type { z } from 'zod'

export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface RouteSchemas {
  /** One line for the document's operation list (else the route file's comment is used). */
  summary?: string
  params?: z.ZodType
  query?: z.ZodType
  body?: z.ZodType
  response?: z.ZodType
  /** The success status when it is not 200 (201 for a creation). */
  status?: number
}

export type ApiSchemaMap = Record<`${ApiMethod} /api/${string}`, RouteSchemas>
