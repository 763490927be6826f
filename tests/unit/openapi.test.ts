// The API document's generator (server/core/openapi.ts) over the routes the files declare (the
// same method and path Nitro gives them, server/core/api-routes.ts) and the schemas the layers
// lend: a valid OpenAPI 3.1 shape, every path parameter declared, unique operation ids, the
// policy's roles, and body schemas that are the routes' own (ClientCreate's fields, checked by
// validating real input with ajv's JSON Schema 2020-12 validator against the converted schema).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { ClientCreate } from '#layers/clients/core/schemas'
import { hubApiSchemas } from '#server/core/api-schemas'
import { routeComment, routeFromApiFile, type ScannedRoute } from '#server/core/api-routes'
import { buildOpenApiDocument, openApiPath } from '#server/core/openapi'
import { groupOperations, schemaFields, schemaTypeText } from '#shared/api-document'

const ROOT = resolve(import.meta.dirname, '../..')

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.ts$/.test(name) ? [path] : []
  })
}

const apiDirs = [join(ROOT, 'server/api'), ...readdirSync(join(ROOT, 'layers')).map(layer => join(ROOT, 'layers', layer, 'server/api'))]
  .filter(dir => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
const routes: ScannedRoute[] = apiDirs.flatMap(dir => filesUnder(dir).map(file => ({
  ...routeFromApiFile(relative(dir, file)),
  file: relative(ROOT, file),
  comment: routeComment(readFileSync(file, 'utf8')),
})))

const document = buildOpenApiDocument(routes, hubApiSchemas, { version: '0.1.0', cookieName: 'synedre-session' })
const operations = Object.entries(document.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method, op })),
)
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })

describe('the OpenAPI document generator', () => {
  it('reads the route files as Nitro names them', () => {
    expect(routeFromApiFile('clients/[id]/active.put.ts')).toEqual({ method: 'PUT', route: '/api/clients/:id/active' })
    expect(routeFromApiFile('clients/index.get.ts')).toEqual({ method: 'GET', route: '/api/clients' })
    expect(routeFromApiFile('openapi.json.get.ts')).toEqual({ method: 'GET', route: '/api/openapi.json' })
    expect(openApiPath('/api/agents/runs/:id/approvals/:approval')).toBe('/api/agents/runs/{id}/approvals/{approval}')
    expect(routes.length).toBeGreaterThan(150)
  })

  it('has the OpenAPI 3.1 shape, with one operation per route file', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.info).toMatchObject({ title: expect.any(String), version: '0.1.0' })
    expect(operations).toHaveLength(routes.length)
    for (const route of routes) expect(document.paths[openApiPath(route.route)]?.[route.method.toLowerCase()], route.file).toBeDefined()
    for (const { path, op } of operations) {
      expect(path).toMatch(/^\/api\//)
      expect(op.summary.length, path).toBeGreaterThan(0)
      expect(op.tags).toEqual([path.split('/')[2]])
      expect(Object.keys(op.responses).every(status => /^[1-5]\d\d$/.test(status)), path).toBe(true)
      for (const response of Object.values(op.responses)) expect(response.description ?? response.$ref, path).toBeTruthy()
    }
  })

  it('declares every path parameter, and only those, each required', () => {
    for (const { path, op } of operations) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map(m => m[1])
      const declared = (op.parameters ?? []).filter(p => p.in === 'path')
      expect(declared.map(p => p.name), path).toEqual(inPath)
      expect(declared.every(p => p.required), path).toBe(true)
    }
  })

  it('gives every operation a unique operationId', () => {
    const ids = operations.map(({ op }) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.every(id => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true)
  })

  it('declares the cookie session and the bearer token, and uses them on every non-public operation', () => {
    expect(document.components.securitySchemes.session).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'synedre-session' }))
    expect(document.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }))
    const login = document.paths['/api/auth/login']!.post!
    expect([login['x-required-role'], login.security, login.responses['401']]).toEqual(['public', [], undefined])
    for (const { path, op } of operations.filter(({ op }) => op['x-required-role'] !== 'public')) {
      expect(op.security, path).toEqual([{ session: [] }, { bearer: [] }])
      expect(op.responses['401'], path).toEqual({ $ref: '#/components/responses/Unauthenticated' })
    }
  })

  it('names the minimum role the access policy requires', () => {
    expect(document.paths['/api/clients']!.get!['x-required-role']).toBe('viewer')
    expect(document.paths['/api/clients']!.post!['x-required-role']).toBe('operator')
    expect(document.paths['/api/clients/{id}/active']!.put!['x-required-role']).toBe('founder')
    expect(document.paths['/api/skills/{id}/enablement']!.put!['x-required-role']).toBe('viewer')
    expect(document.paths['/api/agents/custom/{codename}/runs']!.post!['x-required-role']).toBe('viewer')
  })

  it('gives POST /api/clients ClientCreate\'s own body schema', () => {
    const op = document.paths['/api/clients']!.post!
    const schema = op.requestBody!.content['application/json'].schema
    expect(op.requestBody!.required).toBe(true)
    expect(op['x-schema']).toBe('zod')
    expect(Object.keys(schema.properties as object).sort()).toEqual(Object.keys(ClientCreate.shape).sort())
    expect(schema.required).toEqual(['name'])
    expect(schema.additionalProperties).toBe(false)
    const validate = ajv.compile(schema)
    expect(validate({ name: 'Acme', domains: ['acme.example'], contacts: [{ email: 'camille@acme.example' }] }), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ name: 'Acme', colour: 'red' })).toBe(false)
    expect(validate({ domains: ['acme.example'] })).toBe(false)
    expect(validate({ name: 'Acme', domains: ['not a domain'] })).toBe(false)
    expect(op.responses['201']).toBeDefined()
    expect(op.responses['400']).toEqual({ $ref: '#/components/responses/BadInput' })
  })

  it('publishes the inbox query, the message routes and the custom agent run with their schemas', () => {
    const inbox = document.paths['/api/atlas/inbox']!.get!
    expect(inbox.parameters!.filter(p => p.in === 'query').map(p => p.name)).toEqual(expect.arrayContaining(['status', 'intent', 'q', 'needsHuman', 'page', 'pageSize', 'sort', 'dir']))
    const approve = document.paths['/api/atlas/messages/{id}/approve']!.post!
    expect(approve.requestBody!.required).toBe(false)
    expect(approve.parameters![0]!.schema).toMatchObject({ type: 'integer' })
    const run = document.paths['/api/agents/custom/{codename}/runs']!.post!
    expect(run.requestBody!.content['application/json'].schema).toMatchObject({ type: 'object', required: ['request'] })
  })

  it('says which operations have no schema yet, and every schema it publishes compiles as JSON Schema 2020-12', () => {
    const without = operations.filter(({ op }) => op['x-schema'] === 'none')
    expect(without.length).toBeGreaterThan(0)
    expect(operations.length - without.length).toBeGreaterThanOrEqual(Object.keys(hubApiSchemas).length)
    for (const { path, op } of operations) {
      if (op.requestBody) expect(() => ajv.compile(op.requestBody!.content['application/json'].schema), path).not.toThrow()
      for (const parameter of op.parameters ?? []) expect(() => ajv.compile(parameter.schema), `${path} ${parameter.name}`).not.toThrow()
    }
  })

  it('refuses a schema map naming a route that does not exist', () => {
    expect(() => buildOpenApiDocument(routes, { ...hubApiSchemas, 'GET /api/nowhere': {} }, { version: '0', cookieName: 's' })).toThrow(/GET \/api\/nowhere/)
  })
})

describe('the API page\'s reading of the document', () => {
  it('groups the operations by domain and filters them by every word of the search', () => {
    const all = groupOperations(document, '')
    expect(all.reduce((sum, group) => sum + group.operations.length, 0)).toBe(operations.length)
    expect(all.map(group => group.tag)).toEqual([...all.map(group => group.tag)].sort())
    const clients = groupOperations(document, 'POST /api/clients')
    expect(clients.map(group => group.tag)).toEqual(['clients'])
    expect(clients[0]!.operations.map(entry => `${entry.method} ${entry.path}`)).toEqual(['post /api/clients'])
    expect(groupOperations(document, 'founder', 'clients')[0]!.operations.map(entry => entry.path)).toEqual(['/api/clients/{id}/active'])
    expect(groupOperations(document, 'no-such-operation')).toEqual([])
  })

  it('tells a schema\'s fields in a few words', () => {
    const fields = schemaFields(document.paths['/api/clients']!.post!.requestBody!.content['application/json'].schema)
    expect(fields.find(field => field.name === 'name')).toEqual({ name: 'name', type: 'string', required: true, notes: 'min length 1 · max length 200' })
    expect(fields.find(field => field.name === 'repository')).toMatchObject({ type: 'string | null', required: false, notes: expect.stringContaining('default null') })
    expect(fields.find(field => field.name === 'domains')).toMatchObject({ type: 'string[]' })
    expect(schemaTypeText({ type: 'string', enum: ['asc', 'desc'] })).toBe('"asc" | "desc"')
    expect(schemaTypeText(undefined)).toBe('any')
  })
})
