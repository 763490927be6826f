// The hub's OpenAPI 3.1 document, built from the routes Nitro scanned (server/core/api-routes.ts)
// and the zod schemas the layers lend (layers/base/core/api-schema-map.ts), converted with zod's
// own JSON Schema output (2020-12, which OpenAPI 3.1 speaks). The minimum role of each operation
// comes from the access policy itself. Framework-free: GET /api/openapi.json calls it once per process.
import { z } from 'zod'
import type { ApiSchemaMap, RouteSchemas } from '#layers/base/core/api-schema-map'
import { requirementFor } from '#shared/access'
import type { ScannedRoute } from './api-routes'

type Json = Record<string, unknown>

export interface OpenApiParameter { name: string, in: 'path' | 'query', required: boolean, schema: Json }

export interface OpenApiResponse { description?: string, $ref?: string, content?: { 'application/json': { schema: Json } } }

export interface OpenApiOperation {
  'operationId': string
  'tags': string[]
  'summary': string
  'description': string
  /** `public`, or the least role the access policy lets through. */
  'x-required-role': 'public' | 'viewer' | 'operator' | 'founder'
  /** `zod`: the route lends its schemas (none when it takes no input); `none`: not described yet. */
  'x-schema': 'zod' | 'none'
  'security': Array<Record<string, string[]>>
  'parameters'?: OpenApiParameter[]
  'requestBody'?: { required: boolean, content: { 'application/json': { schema: Json } } }
  'responses': Record<string, OpenApiResponse>
}

export interface OpenApiDocument {
  openapi: '3.1.0'
  info: { title: string, version: string, description: string }
  servers: Array<{ url: string }>
  tags: Array<{ name: string }>
  paths: Record<string, Record<string, OpenApiOperation>>
  components: {
    securitySchemes: Record<string, { type: string, in?: string, name?: string, scheme?: string, description: string }>
    schemas: Record<string, Json>
    responses: Record<string, OpenApiResponse>
  }
}

export interface OpenApiOptions {
  version: string
  /** The session cookie's name (runtimeConfig.session.name). */
  cookieName: string
}

const ERROR_RESPONSES: Record<string, { status: string, description: string }> = {
  BadInput: { status: '400', description: 'The input does not match the schema (`code: bad_input`, with `issues`) or the request is refused as it stands.' },
  Unauthenticated: { status: '401', description: 'No valid session cookie or bearer token.' },
  Forbidden: { status: '403', description: 'The signed-in role is below the operation\'s minimum role, or the resource is not shared with this person.' },
  NotFound: { status: '404', description: 'Nothing with this identifier.' },
}

/** `/api/clients/:id` (Nitro) as `/api/clients/{id}` (OpenAPI). */
export function openApiPath(route: string): string {
  return route.replace(/\*\*:(\w+)/g, '{$1}').replace(/\*\*/g, '{path}').replace(/:(\w+)/g, '{$1}')
}

function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(match => match[1]!)
}

/** A zod schema as JSON Schema 2020-12, the side a client sends (`input`) or receives (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json
  delete converted.$schema
  return converted
}

function operationId(method: string, path: string): string {
  const words = path.replace(/^\/api\//, '').split('/').flatMap((segment) => {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1]
    return (param ? ['by', param] : segment.split(/[^a-zA-Z0-9]+/)).filter(Boolean)
  })
  return [method.toLowerCase(), ...words.map(word => word[0]!.toUpperCase() + word.slice(1))].join('')
}

// A comment's opening "who may call it" clause (the role is stated apart, from the policy).
const ROLE_PREAMBLE = /^[^:.]{0,120}?\b(?:operators?|founders?|viewers?|signed[- ]in|access\.ts|public)\b[^:.]{0,120}:\s+/i

/** The route's first sentence, short enough for a list; else what the method and path say. */
function summaryOf(route: ScannedRoute, schemas: RouteSchemas | undefined, path: string): string {
  if (schemas?.summary) return schemas.summary
  const sentence = route.comment?.replace(ROLE_PREAMBLE, '').split(/(?<=[.;])\s/)[0]?.trim().replace(/[.;]$/, '')
  if (!sentence) return `${route.method} ${path}`
  const short = sentence.length > 120 ? `${sentence.slice(0, 117)}…` : sentence
  return short[0]!.toUpperCase() + short.slice(1)
}

function accepts(schema: z.ZodType, value: unknown): boolean {
  return schema.safeParse(value).success
}

function parametersOf(path: string, schemas: RouteSchemas | undefined): OpenApiParameter[] {
  const params = schemas?.params ? jsonSchemaOf(schemas.params, 'input') : undefined
  const paramProps = (params?.properties ?? {}) as Record<string, Json>
  const parameters: OpenApiParameter[] = pathParamNames(path).map(name => ({ name, in: 'path', required: true, schema: paramProps[name] ?? { type: 'string' } }))
  if (schemas?.query) {
    const query = jsonSchemaOf(schemas.query, 'input')
    const required = new Set((query.required ?? []) as string[])
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema })
    }
  }
  return parameters
}

function errorRef(name: string): OpenApiResponse {
  return { $ref: `#/components/responses/${name}` }
}

function operationOf(route: ScannedRoute, path: string, schemas: RouteSchemas | undefined): OpenApiOperation {
  // Any value stands for a parameter: the policy's patterns take `[^/]+` or `\d+`.
  const requirement = requirementFor(route.method, path.replace(/\{\w+\}/g, '1'))
  const role = requirement.public ? 'public' : requirement.minRole
  // A map entry without input schemas says the route takes none: described, not missing.
  const hasSchema = schemas !== undefined
  const description = [
    route.comment,
    requirement.public ? 'Public: no session needed.' : `Minimum role: ${role}.`,
    hasSchema ? null : 'Its input has no published schema yet (x-schema: none): the route validates it, the document does not describe it.',
    `Source: ${route.file}.`,
  ].filter(Boolean).join('\n\n')
  const success = String(schemas?.status ?? 200)
  const responses: Record<string, OpenApiResponse> = {
    [success]: {
      description: 'Success.',
      ...(schemas?.response ? { content: { 'application/json': { schema: jsonSchemaOf(schemas.response, 'output') } } } : {}),
    },
  }
  const parameters = parametersOf(path, schemas)
  if (schemas?.body || schemas?.query || parameters.length) responses['400'] = errorRef('BadInput')
  if (!requirement.public) responses['401'] = errorRef('Unauthenticated')
  if (!requirement.public) responses['403'] = errorRef('Forbidden')
  if (pathParamNames(path).length) responses['404'] = errorRef('NotFound')
  return {
    'operationId': operationId(route.method, path),
    'tags': [path.split('/')[2] ?? 'api'],
    'summary': summaryOf(route, schemas, path),
    description,
    'x-required-role': role,
    'x-schema': hasSchema ? 'zod' : 'none',
    'security': requirement.public ? [] : [{ session: [] }, { bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(schemas?.body
      ? { requestBody: { required: !accepts(schemas.body, undefined), content: { 'application/json': { schema: jsonSchemaOf(schemas.body, 'input') } } } }
      : {}),
    responses,
  }
}

export function buildOpenApiDocument(routes: ScannedRoute[], schemas: ApiSchemaMap, options: OpenApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, OpenApiOperation>> = {}
  const usedIds = new Set<string>()
  const sorted = [...routes].sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method))
  for (const route of sorted) {
    const path = openApiPath(route.route)
    const entry = (schemas as Record<string, RouteSchemas | undefined>)[`${route.method} ${path}`]
    const operation = operationOf(route, path, entry)
    let id = operation.operationId
    for (let n = 2; usedIds.has(id); n++) id = `${operation.operationId}${n}`
    usedIds.add(id)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = { ...operation, operationId: id }
  }
  const unknown = Object.keys(schemas).filter(key => !routes.some(route => `${route.method} ${openApiPath(route.route)}` === key))
  if (unknown.length) throw new Error(`apiSchemas name routes that do not exist: ${unknown.join(', ')}`)
  const tags = [...new Set(Object.values(paths).flatMap(ops => Object.values(ops).flatMap(op => op.tags)))].sort()
  return {
    openapi: '3.1.0',
    info: {
      title: 'Synedre OS hub API',
      version: options.version,
      description: 'Every route of the hub, generated from the routes Nitro serves and the zod schemas they validate with. Sign in with the session cookie (POST /api/auth/login) or send a personal access token as `Authorization: Bearer`. Every 4xx answers the h3 error envelope whose `data` is `{ code, message, issues? }`.',
    },
    servers: [{ url: '/' }],
    tags: tags.map(name => ({ name })),
    paths,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: options.cookieName, description: 'The session cookie POST /api/auth/login sets.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'A personal access token, sent as `Authorization: Bearer <token>`.' },
      },
      schemas: {
        // h3's error envelope; `data` is the shape layers/base/core/error-shape.ts gives every 4xx.
        Error: {
          type: 'object',
          required: ['statusCode', 'data'],
          properties: {
            statusCode: { type: 'integer' },
            statusMessage: { type: 'string' },
            message: { type: 'string' },
            data: { $ref: '#/components/schemas/ErrorData' },
          },
        },
        ErrorData: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', description: 'Machine-readable: bad_input, unauthenticated, forbidden, not_found, or the route\'s own.' },
            message: { type: 'string' },
            issues: {
              type: 'array',
              items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } } },
            },
          },
          additionalProperties: true,
        },
      },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, { description }]) => [name, {
        description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }])),
    },
  }
}
