// Running an automate now through the built hub (issue 36 Deliver 5): founder only — an operator
// and a viewer get a machine-readable 403 and nothing starts; a founder's bad body is a 400, an
// unknown automate a 404, a dry run an automate lacks a 400 naming it, and a dry run starts
// (202) and lands in the automate's run log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { syncAutomations } from '#layers/health/core/automations'
import { DEFAULT_CRONTAB, readCrontab } from '#automates/supervisor'
import { automates } from '#automates/registry'

let hub: Hub
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { ATLAS_SPAWN_DISABLED: '1', AI_OFFLINE: '1' } })
  cookies = await signInEveryRole(hub)
  const database = await hubDatabase(hub)
  try {
    const entries = readCrontab(DEFAULT_CRONTAB)
    const definitions = new Map(await Promise.all(entries.map(async e => [e.automation, await automates[e.automation]!()] as const)))
    await syncAutomations(database.db, entries, name => definitions.get(name))
  }
  finally {
    await database.close()
  }
}, 300_000)

afterAll(async () => {
  await hub?.interrupt()
})

const run = (name: string, who: keyof typeof cookies, body: unknown) => fetch(`${hub.url}/api/automations/${name}/run`, {
  method: 'POST', headers: { 'cookie': cookies[who], 'content-type': 'application/json' }, body: JSON.stringify(body),
})

describe('run an automate now', () => {
  it('is the founder\'s alone, with codes a client can act on', async () => {
    for (const who of ['operator', 'viewer'] as const) {
      const refused = await run('learning-suggest', who, { mode: 'live' })
      expect(refused.status).toBe(403)
      expect((await refused.json() as { data: unknown }).data).toMatchObject({ code: 'forbidden', requiredRole: 'founder', role: who })
    }
    expect((await run('learning-suggest', 'founder', { mode: 'now' })).status).toBe(400)
    const unknown = await run('no-such-automate', 'founder', { mode: 'live' })
    expect(unknown.status).toBe(404)
    expect((await unknown.json() as { data: unknown }).data).toMatchObject({ code: 'not_found' })
    const noDryRun = await run('agents-dispatch', 'founder', { mode: 'dry_run' })
    expect(noDryRun.status).toBe(400)
    expect((await noDryRun.json() as { data: unknown }).data).toMatchObject({ code: 'no_dry_run' })

    const started = await run('learning-suggest', 'founder', { mode: 'dry_run' })
    expect(started.status).toBe(202)
    const { pid, args } = await started.json() as { pid: number, args: string[] }
    expect(args).toEqual(['--dry-run'])
    await expect.poll(async () => {
      const log = await (await fetch(`${hub.url}/api/automations/learning-suggest/runs`, { headers: { cookie: cookies.viewer } })).json() as { runs: { items: Array<{ pid: number, status: string }> } }
      return log.runs.items.find(item => item.pid === pid)?.status
    }, { timeout: 120_000 }).toBe('ok')
    // The operator's refusals started nothing: the dry run is the only run in the log.
    const log = await (await fetch(`${hub.url}/api/automations/learning-suggest/runs`, { headers: { cookie: cookies.viewer } })).json() as { runs: { total: number } }
    expect(log.runs.total).toBe(1)
  }, 240_000)
})
