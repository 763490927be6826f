// The skills routes through the built hub (issue 21): the library per person (viewers read
// and enable for themselves, never write), a hand-written skill's versions (409 on a stale
// save), a built-in never deleted (409), the SKILL.md export downloaded (tar, fingerprint
// header) and imported back, a malformed front matter refused with its line (422), and a
// chat run routed to a built-in skill named on its run. Bad input is 400 with data.code;
// no session, 401.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let cookies: Record<Who, string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1' } })
  cookies = await signInEveryRole(hub)
}, 240_000)

afterAll(async () => {
  await hub?.interrupt()
})

interface Summary { id: number, name: string, enabled: boolean, builtIn: boolean, newerVersion: boolean }
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

async function call(
  method: string,
  path: string,
  who: Who | null,
  body?: unknown,
): Promise<{ status: number, json: Json, headers: Headers, bytes: Buffer }> {
  const response = await fetch(`${hub.url}/api${path}`, {
    method,
    headers: { ...(who ? { cookie: cookies[who] } : {}), ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  const json: Json = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : null
  return { status: response.status, json, headers: response.headers, bytes }
}

it('refuses without a session, and a viewer writing a skill; a viewer reads the library and enables for themself', async () => {
  expect((await call('GET', '/skills', null)).status).toBe(401)
  const library = await call('GET', '/skills', 'viewer')
  expect(library.status).toBe(200)
  const recap = (library.json.mine as Summary[]).find(s => s.name === 'write-a-recap')!
  expect(recap).toMatchObject({ builtIn: true, enabled: true })
  expect((await call('POST', '/skills', 'viewer', { name: 'x', description: 'd', body: 'b' })).status).toBe(403)
  expect((await call('PUT', `/skills/${recap.id}/enablement`, 'viewer', { enabled: false })).json).toEqual({ id: recap.id, enabled: false })
  expect(((await call('GET', '/skills', 'viewer')).json.discover as Summary[]).map(s => s.name)).toContain('write-a-recap')
  expect(((await call('GET', '/skills', 'operator')).json.mine as Summary[]).map(s => s.name)).toContain('write-a-recap')
})

it('answers bad input with 400 and a code, a stale save with 409, a built-in deletion with 409', async () => {
  expect((await call('POST', '/skills', 'operator', { name: 'Bad Name', description: 'd', body: 'b' })).json.data).toMatchObject({ code: 'bad_input' })
  expect((await call('POST', '/skills', 'operator', { name: 'ok-name', description: 'd', body: 'b', extra: 1 })).status).toBe(400)
  expect((await call('GET', '/skills/not-a-number', 'operator')).json.data).toMatchObject({ code: 'bad_input' })
  expect((await call('GET', '/skills/999999', 'operator')).status).toBe(404)
  expect((await call('PUT', '/skills/1/enablement', 'operator', { enabled: 'yes' })).status).toBe(400)
  const created = await call('POST', '/skills', 'operator', { name: 'http-skill', description: 'A skill for the http test', body: 'Do it.', files: [{ path: 'ref.md', content: 'shared', shareable: true }, { path: 'private.md', content: 'not shared', shareable: false }] })
  expect(created.status).toBe(200)
  const id = created.json.id as number
  expect((await call('PUT', `/skills/${id}`, 'operator', { description: 'A skill', body: 'Do it well.', baseVersion: 1, files: [{ path: 'ref.md', content: 'shared', shareable: true }, { path: 'private.md', content: 'not shared', shareable: false }] })).json.skill.version).toBe(2)
  expect((await call('PUT', `/skills/${id}`, 'operator', { description: 'x', body: 'y', baseVersion: 1 })).json.data).toMatchObject({ code: 'version_conflict' })
  expect((await call('PUT', `/skills/${id}`, 'founder', { description: 'x', body: 'y' })).status).toBe(200)
  const recap = ((await call('GET', '/skills', 'founder')).json.mine as Summary[]).find(s => s.name === 'write-a-recap')!
  const refused = await call('DELETE', `/skills/${recap.id}`, 'founder')
  expect(refused.status).toBe(409)
  expect(refused.json.data).toMatchObject({ code: 'built_in' })
})

it('exports a SKILL.md bundle and imports it back; a malformed front matter is a 422 naming the line', async () => {
  const created = await call('POST', '/skills', 'operator', { name: 'round-trip', description: 'Round trip: export then import', body: '# Steps\n\nDo it.', files: [{ path: 'ref.md', content: 'shared', shareable: true }, { path: 'private.md', content: 'secret', shareable: false }] })
  const id = created.json.id as number
  const exported = await call('GET', `/skills/${id}/export`, 'operator')
  expect(exported.status).toBe(200)
  expect(exported.headers.get('content-type')).toContain('application/x-tar')
  expect(exported.headers.get('content-disposition')).toContain('round-trip.skill.tar')
  expect(exported.headers.get('x-skill-fingerprint')).toMatch(/^[0-9a-f]{64}$/)
  expect(exported.bytes.toString('utf8')).toContain('round-trip/references/ref.md')
  expect(exported.bytes.toString('utf8')).not.toContain('secret')
  await call('PUT', `/skills/${id}`, 'operator', { description: 'Round trip: export then import', body: '# Steps\n\nDo it twice.' })
  expect(((await call('GET', '/skills', 'operator')).json.mine as Summary[]).find(s => s.id === id)!.newerVersion).toBe(true)
  expect((await call('DELETE', `/skills/${id}`, 'operator')).status).toBe(200)
  const imported = await call('POST', '/skills/import', 'operator', { filename: 'round-trip.skill.tar', content: exported.bytes.toString('base64') })
  expect(imported.status).toBe(200)
  const view = await call('GET', `/skills/${imported.json.id}`, 'operator')
  expect(view.json.skill).toMatchObject({ name: 'round-trip', description: 'Round trip: export then import', body: '# Steps\n\nDo it.', origin: 'import' })
  expect(view.json.files.map((f: { path: string }) => f.path)).toEqual(['ref.md'])
  const bad = await call('POST', '/skills/import', 'operator', { content: Buffer.from('---\nname: fine\ndescription d\n---\nbody\n').toString('base64') })
  expect(bad.status).toBe(422)
  expect(bad.json.data).toMatchObject({ code: 'malformed_front_matter', line: 3 })
  expect((await call('POST', '/skills/import', 'operator', { content: '' })).json.data).toMatchObject({ code: 'bad_input' })
  expect((await call('POST', '/skills/import', 'operator', { content: 'not base64!' })).status).toBe(400)
})

it('routes a chat run to a matching skill: the run names it and its skills step holds the decision', async () => {
  const asked = await call('POST', '/agents/chat', 'operator', { request: 'Triage this bug report please: the login page loops on Safari since Monday' })
  expect(asked.status).toBe(200)
  let run: Json = null
  for (let attempt = 0; attempt < 100; attempt++) {
    run = (await call('GET', `/agents/runs/${asked.json.runId}`, 'operator')).json
    if (run.run && run.run.status !== 'running') break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const step = run.steps.find((s: { kind: string }) => s.kind === 'skills')
  expect(run.skills).toEqual(['triage-a-bug-report'])
  expect(step.input).toMatchObject({ branch: 'high', kept: [expect.objectContaining({ name: 'triage-a-bug-report', mode: 'auto' })] })
  expect(run.run.answer).toContain('triage-a-bug-report')
})

it('restores an old version as a new one; a restore over a newer version is a 409; an unknown version a 404', async () => {
  const created = await call('POST', '/skills', 'operator', { name: 'restore-me', description: 'First description', body: 'First body.', tags: ['one'] })
  const id = created.json.id as number
  expect((await call('PUT', `/skills/${id}`, 'operator', { description: 'Second description', body: 'Second body.', baseVersion: 1 })).json.skill.version).toBe(2)
  expect((await call('POST', `/skills/${id}/versions/1/restore`, 'operator', { baseVersion: 1 })).json.data).toMatchObject({ code: 'version_conflict' })
  expect((await call('POST', `/skills/${id}/versions/9/restore`, 'operator', { baseVersion: 2 })).status).toBe(404)
  expect((await call('POST', `/skills/${id}/versions/0/restore`, 'operator', {})).json.data).toMatchObject({ code: 'bad_input' })
  expect((await call('POST', `/skills/${id}/versions/1/restore`, 'viewer', {})).status).toBe(403)
  const restored = await call('POST', `/skills/${id}/versions/1/restore`, 'operator', { baseVersion: 2 })
  expect(restored.status).toBe(200)
  expect(restored.json.skill).toMatchObject({ version: 3, description: 'First description', body: 'First body.', tags: ['one'] })
  expect(restored.json.versions.map((v: { version: number, note: string | null }) => [v.version, v.note])).toEqual([[3, 'restored from version 1'], [2, null], [1, null]])
})

it('keeps a private skill to its owner (404 for another person, never in Discover); a studio one is discovered', async () => {
  const secret = await call('POST', '/skills', 'operator', { name: 'operator-private', description: 'Only mine', body: 'Mine.', visibility: 'private' })
  const shared = await call('POST', '/skills', 'operator', { name: 'operator-shared', description: 'For the studio', body: 'Ours.' })
  expect(secret.json.visibility).toBe('private')
  for (const [method, path] of [['GET', ''], ['GET', '/export'], ['PUT', '/enablement'], ['POST', '/versions/1/restore']] as const) {
    expect((await call(method, `/skills/${secret.json.id}${path}`, 'founder', method === 'PUT' ? { enabled: true } : {})).status).toBe(404)
  }
  const founder = (await call('GET', '/skills', 'founder')).json
  expect([...founder.mine, ...founder.discover].map((s: Summary) => s.name)).not.toContain('operator-private')
  expect(founder.discover.map((s: Summary) => s.name)).toContain('operator-shared')
  // Made private from the edit form: gone from the founder's Discover; made studio again: back.
  expect((await call('PUT', `/skills/${shared.json.id}`, 'operator', { description: 'For the studio', body: 'Ours.', visibility: 'private' })).json.skill.visibility).toBe('private')
  expect((await call('GET', `/skills/${shared.json.id}`, 'founder')).status).toBe(404)
  expect((await call('GET', '/skills', 'founder')).json.discover.map((s: Summary) => s.name)).not.toContain('operator-shared')
  await call('PUT', `/skills/${shared.json.id}`, 'operator', { description: 'For the studio', body: 'Ours.', visibility: 'studio' })
  expect((await call('GET', '/skills', 'founder')).json.discover.map((s: Summary) => s.name)).toContain('operator-shared')
})
