// MCP servers through the built hub (issue 35): a founder adds server-everything over stdio
// (from npm, in the hub's sandbox), sees it up with its tools unclassified, classifies echo
// READ and reconnects it; an operator and a viewer read the page's data but may not add,
// classify or reconnect (403 forbidden); a bad body is 400 bad_input; an HTTP server off
// MCP_HTTP_ALLOWLIST is saved but stays down with its reason. No environment value appears.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { EVERYTHING_BIN } from '#layers/hub/tests/fixtures/mcp-servers'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let cookies: Record<Who, string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1', SPAWN_SANDBOX: 'bwrap', MCP_HTTP_ALLOWLIST: 'http://127.0.0.1:9/mcp', MCP_SECRET_VALUE: 'never-shown' } })
  cookies = await signInEveryRole(hub)
}, 240_000)

afterAll(async () => {
  await hub?.interrupt()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

async function call(method: string, path: string, who: Who, body?: unknown): Promise<{ status: number, json: Json }> {
  const response = await fetch(`${hub.url}/api${path}`, {
    method,
    headers: { cookie: cookies[who], ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

it('lets a founder add, classify and reconnect a stdio server; others read only', async () => {
  const body = { name: 'everything', transport: 'stdio', command: 'node', args: [EVERYTHING_BIN, 'stdio'], envNames: ['MCP_SECRET_VALUE'] }
  expect((await call('POST', '/agents/mcp', 'operator', body)).json.data).toMatchObject({ code: 'forbidden' })
  expect((await call('POST', '/agents/mcp', 'founder', { ...body, name: 'Not A Name' })).json.data).toMatchObject({ code: 'bad_input' })
  const added = await call('POST', '/agents/mcp', 'founder', body)
  expect(added).toMatchObject({ status: 200, json: { name: 'everything', status: 'up' } })

  const read = await call('GET', '/agents/mcp', 'viewer')
  expect(read.json.canEdit).toBe(false)
  const server = read.json.servers.find((entry: Json) => entry.name === 'everything')
  expect(server).toMatchObject({ status: 'up', envNames: ['MCP_SECRET_VALUE'] })
  expect(server.tools.find((tool: Json) => tool.name === 'echo')).toMatchObject({ class: null })
  expect(JSON.stringify(read.json)).not.toContain('never-shown')

  expect((await call('PUT', '/agents/mcp/everything/tools', 'viewer', { tool: 'echo', class: 'READ' })).status).toBe(403)
  expect((await call('PUT', '/agents/mcp/everything/tools', 'founder', { tool: 'no-such-tool', class: 'READ' })).status).toBe(404)
  expect((await call('PUT', '/agents/mcp/everything/tools', 'founder', { tool: 'echo', class: 'READ' })).json).toMatchObject({ name: 'echo', class: 'READ' })
  expect((await call('POST', '/agents/mcp/everything/reconnect', 'operator')).status).toBe(403)
  expect((await call('POST', '/agents/mcp/everything/reconnect', 'founder')).json).toEqual({ name: 'everything', status: 'up' })
  const after = await call('GET', '/agents/mcp', 'founder')
  expect(after.json.servers[0].tools.find((tool: Json) => tool.name === 'echo')).toMatchObject({ class: 'READ', classifiedBy: expect.any(String) })
})

it('saves an HTTP server off the allowlist but leaves it down, saying why', async () => {
  const saved = await call('POST', '/agents/mcp', 'founder', { name: 'elsewhere', transport: 'http', url: 'http://127.0.0.1:9/other' })
  expect(saved.json).toMatchObject({ name: 'elsewhere', status: 'down' })
  const server = (await call('GET', '/agents/mcp', 'founder')).json.servers.find((entry: Json) => entry.name === 'elsewhere')
  expect(server.lastError).toMatch(/^url_not_allowlisted/)
})
