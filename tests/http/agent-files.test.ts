// The agent files' routes through the built hub (issue 35, Deliver 3), with a real clamd: a PDF,
// a DOCX and a CSV uploaded as multipart/form-data (201, typed from their bytes) and given to a
// chat turn, whose run reads them; an EICAR file is refused with 422 `infected` and no run
// starts; a mismatched type is a 415 with its code; a multipart body on any other route is
// refused by the request guard (403 json_required); a produced file is downloaded by its run's
// person as an attachment, and is a 404 for another viewer.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { agentRuns } from '#db/schema/agent-runs'
import { eicar, startClamd, writeEicarDatabase, type Clamd } from '#layers/atlas/tests/fakes/clamav'
import { CSV, docxWith, pdfWith } from '#layers/hub/tests/fixtures/documents'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let database: Database
let cookies: Record<Who, string>
let clamd: Clamd
let clamdb: { dir: string, remove: () => void }

beforeAll(async () => {
  clamdb = writeEicarDatabase()
  clamd = await startClamd(clamdb.dir)
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1', CLAMD_HOST: clamd.host, CLAMD_PORT: String(clamd.port) } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
}, 120_000)

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
  await clamd?.stop()
  clamdb?.remove()
})

async function upload(who: Who, files: Array<{ name: string, bytes: Buffer }>) {
  const form = new FormData()
  for (const file of files) form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name)
  const response = await fetch(`${hub.url}/api/agents/files`, { method: 'POST', headers: { cookie: cookies[who] }, body: form })
  return {
    status: response.status,
    json: (await response.json()) as { files?: Array<{ id: string, name: string, contentType: string }>, data?: Record<string, unknown> },
  }
}

async function post<T>(path: string, who: Who, body: unknown): Promise<{ status: number, json: T }> {
  const response = await fetch(`${hub.url}/api/agents${path}`, { method: 'POST', headers: { 'cookie': cookies[who], 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, json: await response.json() as T }
}

async function finished(
  runId: string,
  who: Who,
): Promise<{
  run: { status: string }
  steps: Array<{ tool: string | null, status: string, output: string | null }>
  files: Array<{ id: string, direction: string, name: string }>
}> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetch(`${hub.url}/api/agents/runs/${runId}`, { headers: { cookie: cookies[who] } })
    const view = (await response.json()) as Awaited<ReturnType<typeof finished>>
    if (view.run.status !== 'running') return view
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  throw new Error(`run ${runId} still running`)
}

const plan = (text: string, steps: unknown[]) => `${text}\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``
const runCount = async () => Number((await database.db.select({ n: sql<number>`count(*)::int` }).from(agentRuns))[0]!.n)

describe('the agent files routes', () => {
  it('uploads a PDF, a DOCX and a CSV, and a chat turn reads them', async () => {
    const uploaded = await upload('viewer', [
      { name: 'invoice.pdf', bytes: pdfWith(['Total due: 4,380 EUR']) },
      { name: 'notes.docx', bytes: docxWith(['The launch moves to March 12.']) },
      { name: 'clients.csv', bytes: Buffer.from(CSV) },
    ])
    expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(201)
    const ids = uploaded.json.files!.map(file => file.id)
    const started = await post<{ runId: string }>('/chat', 'viewer', { request: plan('What do they say?', [{ calls: ids.map(id => ({ call: 'read_uploaded_file', input: { id } })) }]), fileIds: ids })
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const view = await finished(started.json.runId, 'viewer')
    const reads = view.steps.filter(step => step.tool === 'read_uploaded_file')
    expect(reads.map(step => step.status)).toEqual(['ok', 'ok', 'ok'])
    expect(reads[0]!.output).toContain('Total due: 4,380 EUR')
    expect(reads[1]!.output).toContain('The launch moves to March 12.')
    expect(reads[2]!.output).toContain('Dupont, SARL | 1200')
  })

  it('refuses an EICAR file with 422 infected before any run, a mismatched type with 415, a multipart body elsewhere with 403', async () => {
    const before = await runCount()
    const infected = await upload('operator', [{ name: 'facture.pdf', bytes: eicar() }])
    expect(infected.status).toBe(422)
    expect(infected.json.data).toMatchObject({ code: 'infected', name: 'facture.pdf' })
    expect(await runCount()).toBe(before)
    const mismatch = await upload('operator', [{ name: 'notes.pdf', bytes: docxWith(['x']) }])
    expect(mismatch.status).toBe(415)
    expect(mismatch.json.data).toMatchObject({ code: 'type_mismatch', declared: '.pdf' })
    const form = new FormData()
    form.append('request', 'hello')
    const elsewhere = await fetch(`${hub.url}/api/agents/chat`, { method: 'POST', headers: { cookie: cookies.operator }, body: form })
    expect(elsewhere.status).toBe(403)
    expect(((await elsewhere.json()) as { data: { code: string } }).data.code).toBe('json_required')
  })

  it('downloads a produced file for the run\'s person as an attachment, and answers 404 to another viewer', async () => {
    const started = await post<{ runId: string }>('/chat', 'operator', { request: plan('Write it down', [{ call: 'produce_file', input: { name: 'résumé "final"', type: 'text/markdown', content: '# Done\n' } }, { answer: 'ok' }]) })
    const view = await finished(started.json.runId, 'operator')
    const file = view.files.find(entry => entry.direction === 'out')!
    expect(file.name).toBe('résumé _final_.md')
    const own = await fetch(`${hub.url}/api/agents/files/${file.id}`, { headers: { cookie: cookies.operator } })
    expect(own.status).toBe(200)
    expect(own.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(own.headers.get('content-disposition')).toBe('attachment; filename="r_sum_ _final_.md"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9%20_final_.md')
    expect(own.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await own.text()).toBe('# Done\n')
    const other = await fetch(`${hub.url}/api/agents/files/${file.id}`, { headers: { cookie: cookies.viewer } })
    expect(other.status).toBe(404)
  })
})
