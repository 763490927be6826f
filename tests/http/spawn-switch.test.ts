// The spawn engine's switch through the built hub (issue 36, Deliver 2): founder only — an
// operator and a viewer get a machine-readable 403 and nothing is stored; a founder's bad body
// is a 400 naming the field; a founder switches it off (with a reason) and on again, the
// status every role reads says so, and each turn is audited with who.
import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FOUNDER, hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { hubAudit } from '#db/schema/hub'
import { spawnEngineSwitch } from '#db/schema/spawn-switch'

let hub: Hub
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  // No supervisor: no spawn runs here; the switch and the status are the subject.
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1' } })
  cookies = await signInEveryRole(hub)
}, 300_000)

afterAll(async () => {
  await hub?.interrupt()
})

const turn = (who: keyof typeof cookies, body: unknown) => fetch(`${hub.url}/api/atlas/spawns/switch`, {
  method: 'POST', headers: { 'cookie': cookies[who], 'content-type': 'application/json' }, body: JSON.stringify(body),
})
const status = async (who: keyof typeof cookies) => await (await fetch(`${hub.url}/api/atlas/spawns/status`, { headers: { cookie: cookies[who] } })).json() as { disabled: boolean, disabledBy: string | null, note: string | null, switch: { disabled: boolean, by: string, reason: string | null } | null }

describe('the spawn engine\'s switch', () => {
  it('is the founder\'s alone, refuses a bad body with codes a client can act on, and says who switched it', async () => {
    for (const who of ['operator', 'viewer'] as const) {
      const refused = await turn(who, { disabled: true })
      expect(refused.status).toBe(403)
      expect((await refused.json() as { data: unknown }).data).toMatchObject({ code: 'forbidden', requiredRole: 'founder', role: who })
    }
    expect(await status('viewer')).toMatchObject({ disabled: false, disabledBy: null, switch: null })

    for (const body of [{}, { disabled: 'yes' }, { disabled: true, reason: 'x'.repeat(501) }]) {
      const bad = await turn('founder', body)
      expect(bad.status, JSON.stringify(body).slice(0, 60)).toBe(400)
      expect((await bad.json() as { data: unknown }).data).toMatchObject({ code: 'bad_input', issues: expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^(disabled|reason)$/) })]) })
    }
    expect(await status('founder')).toMatchObject({ disabled: false, switch: null })

    const off = await turn('founder', { disabled: true, reason: 'a runaway agent' })
    expect(off.status).toBe(200)
    expect(await off.json()).toMatchObject({ switch: { disabled: true, by: FOUNDER.email, reason: 'a runaway agent' } })
    expect(await status('viewer')).toMatchObject({ disabled: true, disabledBy: 'hub', note: expect.stringContaining(FOUNDER.email), switch: { disabled: true, by: FOUNDER.email } })

    const on = await turn('founder', { disabled: false })
    expect(on.status).toBe(200)
    expect(await status('operator')).toMatchObject({ disabled: false, disabledBy: null, note: null, switch: { disabled: false, by: FOUNDER.email, reason: null } })

    const database = await hubDatabase(hub)
    try {
      const turns = await database.db.select().from(spawnEngineSwitch).orderBy(asc(spawnEngineSwitch.id))
      expect(turns.map(row => row.disabled)).toEqual([true, false])
      const audit = await database.db.select({ actor: hubAudit.actor, action: hubAudit.action }).from(hubAudit).where(eq(hubAudit.target, 'atlas-spawn')).orderBy(asc(hubAudit.id))
      expect(audit).toEqual([{ actor: FOUNDER.email, action: 'spawn_engine_disabled' }, { actor: FOUNDER.email, action: 'spawn_engine_enabled' }])
    }
    finally {
      await database.close()
    }
  }, 120_000)
})
