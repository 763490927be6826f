// GET /api/openapi.json on the built hub: the document for any signed-in role (a viewer here),
// 401 without a session, every route file of the app and of every layer in it, the clients
// POST body as ClientCreate says it, and the route refusing what the document says it refuses.
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/processes'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { routeFromApiFile } from '#server/core/api-routes'
import { openApiPath, type OpenApiDocument } from '#server/core/openapi'
import { ClientCreate } from '#layers/clients/core/schemas'

let hub: Hub
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  cookies = await signInEveryRole(hub)
})

afterAll(async () => {
  await hub?.interrupt()
})

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.ts$/.test(name) ? [path] : []
  })
}

/** Every route file of the app and the layers, as Nitro names its route. */
function routeFiles(): Array<{ file: string, method: string, path: string }> {
  const dirs = [join(ROOT, 'server/api'), ...readdirSync(join(ROOT, 'layers')).map(layer => join(ROOT, 'layers', layer, 'server/api'))]
  return dirs.filter(dir => statSync(dir, { throwIfNoEntry: false })?.isDirectory()).flatMap(dir => filesUnder(dir).map((file) => {
    const { method, route } = routeFromApiFile(relative(dir, file))
    return { file: relative(ROOT, file), method, path: openApiPath(route) }
  }))
}

const getDocument = (cookie?: string) => fetch(`${hub.url}/api/openapi.json`, { headers: cookie ? { cookie } : {} })

describe('GET /api/openapi.json', () => {
  it('answers 401 with the shared error shape without a session', async () => {
    const response = await getDocument()
    expect(response.status).toBe(401)
    expect(((await response.json()) as { data?: unknown }).data).toEqual({ code: 'unauthenticated', message: expect.any(String) })
  })

  it('answers a viewer with the OpenAPI 3.1 document, the clients POST body from ClientCreate', async () => {
    const response = await getDocument(cookies.viewer)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    const document = await response.json() as OpenApiDocument
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearer', 'session'])
    const create = document.paths['/api/clients']?.post
    expect(create).toMatchObject({ 'x-required-role': 'operator', 'x-schema': 'zod', 'requestBody': { required: true } })
    const schema = create!.requestBody!.content['application/json'].schema as { properties: Record<string, unknown>, required: string[], additionalProperties: boolean }
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(ClientCreate.shape).sort())
    expect(schema.required).toEqual(['name'])
    expect(schema.additionalProperties).toBe(false)
    expect(document.paths['/api/clients']?.get?.['x-required-role']).toBe('viewer')
    expect(document.paths['/api/auth/login']?.post?.security).toEqual([])
    // Built once per process: the same document twice.
    expect(await (await getDocument(cookies.viewer)).json()).toEqual(document)
  })

  it('lists every route file under server/api and layers/*/server/api', async () => {
    const document = await (await getDocument(cookies.viewer)).json() as OpenApiDocument
    const files = routeFiles()
    expect(files.length).toBeGreaterThan(150)
    const missing = files.filter(({ method, path }) => !document.paths[path]?.[method.toLowerCase()]).map(({ file }) => file)
    expect(missing).toEqual([])
    const operations = Object.values(document.paths).reduce((sum, operations) => sum + Object.keys(operations).length, 0)
    expect(operations).toBe(files.length)
  })

  it('matches the route: what the body schema forbids, POST /api/clients refuses with bad_input', async () => {
    const refused = await fetch(`${hub.url}/api/clients`, {
      method: 'POST',
      headers: { 'cookie': cookies.operator, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme', colour: 'red' }),
    })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { data?: { code?: string, issues?: unknown[] } }).data).toMatchObject({ code: 'bad_input', issues: expect.any(Array) })
  })
})
