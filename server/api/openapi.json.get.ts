// Any signed-in role (a read, shared/access.ts): the hub's OpenAPI 3.1 document, built once
// per process from the routes Nitro serves (#api-routes, modules/api-routes.ts) and the zod
// schemas the layers lend (server/core/api-schemas.ts). The page /hub/api renders it.
import routes, { version } from '#api-routes'
import { hubApiSchemas } from '../core/api-schemas'
import { buildOpenApiDocument } from '../core/openapi'

let document: ReturnType<typeof buildOpenApiDocument> | undefined

export default defineEventHandler(() => {
  const { name } = useRuntimeConfig().session as { name: string }
  document ??= buildOpenApiDocument(routes, hubApiSchemas, { version, cookieName: name })
  return document
})
