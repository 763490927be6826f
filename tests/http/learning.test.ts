// The learning routes of this part through the built hub (issue 18, Deliver 5 and 6): the
// debrief from the hub (ROI guard → 409, --force → a draft in the vault inbox), the skill
// proposals list for any role, and promotion / rejection for the founder only (an operator
// or a viewer gets 403 and nothing changes); bad input is a 400 naming the problem.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#db/connection'
import { learnLessons } from '#db/schema/learn'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { skills } from '#db/schema/skills'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { DEBRIEF_SECTIONS } from '#layers/learning/core/debrief/prompt'
import type { SkillProposalView } from '#layers/learning/core/skills/proposals'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

const AGENT = fileURLToPath(new URL('../../layers/learning/tests/fixtures/debrief-agent.mjs', import.meta.url))

let hub: Hub
let database: Database
let model: ScriptedModel
let cookies: Record<'founder' | 'operator' | 'viewer', string>

beforeAll(async () => {
  model = await startScriptedModel()
  model.byDefault(() => DEBRIEF_SECTIONS.map((title, i) => `## ${i + 1}. ${title}\nfrom the provider`).join('\n'))
  hub = await startHub({ env: { ...model.env, SPAWN_AGENT_BIN: AGENT, DEBRIEF_AGENT_MODE: 'ok' } })
  cookies = await signInEveryRole(hub)
  database = await hubDatabase(hub, 2)
}, 300_000)

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
  await model?.close()
})

interface Answer {
  data?: Record<string, unknown>
  notePath: string
  proposals: SkillProposalView[]
  stats: { byStatus: Record<string, number> }
  skill: Record<string, unknown>
  proposal: Record<string, unknown>
  [key: string]: unknown
}

async function api(method: string, path: string, who: keyof typeof cookies, body?: unknown): Promise<{ status: number, json: Answer }> {
  const response = await fetch(`${hub.url}/api/learning${path}`, {
    method,
    headers: { cookie: cookies[who], ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  return { status: response.status, json: await response.json() as Answer }
}

describe('learning debriefs and skill proposals through the hub', () => {
  it('a debrief from the hub: the ROI guard, its override, a draft in the vault inbox; a viewer is refused', async () => {
    const small = await worksite(database.db, 1)
    const refused = await api('POST', '/debriefs', 'operator', { projectId: small.project.id })
    expect(refused.status).toBe(409)
    expect(refused.json.data).toMatchObject({ code: 'roi_guard', workItems: 2, minimum: 3 })
    const forced = await api('POST', '/debriefs', 'operator', { projectId: small.project.id, force: true })
    expect(forced.status, JSON.stringify(forced.json)).toBe(200)
    expect(forced.json).toMatchObject({ forced: true, via: 'agent-cli', workItems: 2 })
    expect(forced.json.notePath).toMatch(/^inbox\/debriefs\//)
    const note = readFileSync(join(hub.dataDir, 'vault', forced.json.notePath), 'utf8')
    expect(note).toContain('status: draft')
    expect(note).toContain('requested_by: operator@studio.test')
    expect(existsSync(join(hub.dataDir, 'vault', 'permanent', forced.json.notePath.replace(/^inbox\//, '')))).toBe(false)
    expect((await api('POST', '/debriefs', 'viewer', { projectId: small.project.id, force: true })).status).toBe(403)
    const bad = await api('POST', '/debriefs', 'operator', { projectId: 'not-a-uuid' })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.json)).toMatch(/projectId/)
    expect((await api('POST', '/debriefs', 'operator', { projectId: '00000000-0000-4000-8000-000000000000' })).json.data).toMatchObject({ code: 'project_not_found' })
  }, 120_000)

  it('proposals: listed for a viewer; promoted or rejected by the founder only; decided once', async () => {
    const [a, b] = await database.db.insert(learnSkillProposals).values([
      { pattern: 'Screenshots before deploy', name: 'screenshot-first', description: 'Screenshot each page first.', body: '1. Screenshot.', fingerprint: 'screenshot-first', proposedBy: 'learning-skill-detector', evidence: [{ spawnId: '00000000-0000-4000-8000-000000000001', excerpt: 'took a screenshot' }] },
      { pattern: 'Tests twice', name: 'tests-twice', description: 'Run the tests twice.', body: '1. Run them. 2. Again.', fingerprint: 'tests-twice', proposedBy: 'learning-skill-detector' },
    ]).returning()
    const listed = await api('GET', '/skill-proposals?status=pending', 'viewer')
    expect(listed.status).toBe(200)
    expect(listed.json.proposals.map(p => p.name).sort()).toEqual(['screenshot-first', 'tests-twice'])
    expect(listed.json.proposals.find(p => p.name === 'screenshot-first')!.evidence).toEqual([{ spawnId: '00000000-0000-4000-8000-000000000001', excerpt: 'took a screenshot' }])
    expect(listed.json.stats.byStatus).toMatchObject({ pending: 2 })
    expect((await api('GET', '/skill-proposals?status=maybe', 'viewer')).status).toBe(400)

    for (const who of ['operator', 'viewer'] as const) {
      for (const action of ['promote', 'reject']) {
        const refused = await api('POST', `/skill-proposals/${a!.id}/${action}`, who)
        expect([refused.status, refused.json.data?.code], `${who} ${action}`).toEqual([403, 'forbidden'])
      }
    }
    expect(await database.db.select().from(skills).where(eq(skills.builtIn, false))).toEqual([])
    expect((await api('POST', `/skill-proposals/${a!.id}/promote`, 'founder', { name: 'Not A Name' })).status).toBe(400)
    expect((await api('POST', '/skill-proposals/abc/promote', 'founder')).status).toBe(400)
    expect((await api('POST', '/skill-proposals/999999/promote', 'founder')).status).toBe(404)

    const promoted = await api('POST', `/skill-proposals/${a!.id}/promote`, 'founder', { note: 'yes' })
    expect(promoted.status, JSON.stringify(promoted.json)).toBe(200)
    expect(promoted.json.skill).toMatchObject({ name: 'screenshot-first', sourceProposalId: a!.id, createdBy: 'founder@studio.test' })
    expect(promoted.json.proposal).toMatchObject({ status: 'promoted', decidedBy: 'founder@studio.test', decisionNote: 'yes' })
    const again = await api('POST', `/skill-proposals/${a!.id}/reject`, 'founder')
    expect([again.status, again.json.data?.code]).toEqual([409, 'already_decided'])
    const rejected = await api('POST', `/skill-proposals/${b!.id}/reject`, 'founder', { note: 'too narrow' })
    expect(rejected.json.proposal).toMatchObject({ status: 'rejected', decidedBy: 'founder@studio.test' })
    expect((await database.db.select().from(skills).where(eq(skills.builtIn, false))).map(s => s.name)).toEqual(['screenshot-first'])
  }, 120_000)

  it('un-archive (the forgetting curve undone): an operator brings a lesson back; a viewer is refused; bad ids are 4xx', async () => {
    const [archived] = await database.db.insert(learnLessons).values({ title: 'Forgotten by the curve', archivedAt: new Date() }).returning()
    const refused = await api('POST', `/lessons/${archived!.id}/unarchive`, 'viewer')
    expect([refused.status, refused.json.data?.code]).toEqual([403, 'forbidden'])
    const done = await api('POST', `/lessons/${archived!.id}/unarchive`, 'operator')
    expect([done.status, done.json]).toEqual([200, { id: archived!.id, archivedAt: null }])
    expect((await database.db.select().from(learnLessons).where(eq(learnLessons.id, archived!.id)))[0]!.archivedAt).toBeNull()
    const twice = await api('POST', `/lessons/${archived!.id}/unarchive`, 'operator')
    expect([twice.status, twice.json.data?.code]).toEqual([409, 'not_archived'])
    expect((await api('POST', '/lessons/abc/unarchive', 'operator')).status).toBe(400)
    expect((await api('POST', '/lessons/99999999/unarchive', 'operator')).json.data?.code).toBe('not_found')
  }, 60_000)
})
